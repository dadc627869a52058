import { type ContextInput, frame } from '../analyzers/error-contexts.js';

/**
 * Builds one case of the rules-analyzer signature table. Cases are one realistic error per
 * signature family and language, as trackers report them. `at` is the
 * location the analysis must name; `mentions` are the specifics it must extract.
 */
export interface SignatureCase {
  name: string;
  id: string;
  band: 'strong' | 'partial' | 'location';
  mentions: string[];
  at: string;
  input: ContextInput;
}

const py = frame('app/services/orders.py', 'place_order', 42, 'total = compute(order)');
const PY = 'app/services/orders.py:42 in place_order';
const js = frame(
  'src/orders/handler.ts',
  'handleOrder',
  88,
  'const result = await placeOrder(req.body);',
);
const JS = 'src/orders/handler.ts:88 in handleOrder';
const jv = frame('OrderService.java', 'com.acme.orders.OrderService.place', 57);
const JV = 'OrderService.java:57 in com.acme.orders.OrderService.place';
const go = frame(
  '/app/internal/orders/service.go',
  'github.com/acme/shop/internal/orders.(*Service).Place',
  120,
);
const GO =
  '/app/internal/orders/service.go:120 in github.com/acme/shop/internal/orders.(*Service).Place';
const goRuntime = frame('/usr/local/go/src/runtime/panic.go', 'runtime.gopanic', 770);

export function signatureCase(
  name: string,
  id: string,
  band: SignatureCase['band'],
  mentions: string[],
  input: ContextInput,
  /** Where the analysis must point when the case brings its own frames or culprit. */
  at?: string,
): SignatureCase {
  const lang = name.split(' ')[0];
  const [f, defaultAt] =
    lang === 'python'
      ? [py, PY]
      : lang === 'node'
        ? [js, JS]
        : lang === 'java'
          ? [jv, JV]
          : [go, GO];
  const frames = lang === 'go' ? [f, goRuntime] : [f];
  return {
    name,
    id,
    band,
    mentions,
    at: at ?? defaultAt,
    input: { platform: lang, frames, ...input },
  };
}
