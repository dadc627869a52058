import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isLibraryFrame } from '../../src/features/diagnosis/error-location.js';
import { FAILURE_SIGNATURES } from '../../src/features/diagnosis/failure-signatures.js';
import { createRulesAnalyzer, diagnoseError } from '../../src/features/diagnosis/rules-analyzer.js';
import { buildErrorContext } from '../../src/features/errtracker/error-context.js';
import { type ContextInput, errorContext, frame } from '../analyzers/error-contexts.js';
import { CODE_CASES } from './signature-cases-code.js';
import { INFRA_CASES } from './signature-cases-infra.js';
import { INPUT_CASES } from './signature-cases-input.js';
import { UPSTREAM_CASES } from './signature-cases-upstream.js';

const SIGNATURE_CASES = [...CODE_CASES, ...INPUT_CASES, ...INFRA_CASES, ...UPSTREAM_CASES];

const BANDS = {
  strong: [0.8, 0.92],
  partial: [0.55, 0.75],
  location: [0.35, 0.5],
} as const;

describe('rules analyzer: signature table', () => {
  it.each(SIGNATURE_CASES)('$id: $name', ({ input, id, band, mentions, at }) => {
    const { signatureId, analysis } = diagnoseError(errorContext(input));
    expect(signatureId).toBe(id);
    const [low, high] = BANDS[band];
    expect(analysis.confidence).toBeGreaterThanOrEqual(low);
    expect(analysis.confidence).toBeLessThanOrEqual(high);
    for (const mention of mentions) expect(analysis.root_cause).toContain(mention);
    expect(analysis.root_cause).toContain(at);
    expect(analysis.fix_suggestion.length).toBeGreaterThan(20);
    expect(analysis.prevention.length).toBeGreaterThan(20);
    expect(analysis.impact).toContain('checkout');
    expect(analysis.analyzed_by).toBe('rules');
    expect(analysis.root_cause).not.toMatch(/\{\w+\}/);
  });

  it('covers every signature with at least one case', () => {
    const covered = new Set(SIGNATURE_CASES.map((c) => c.id));
    expect(FAILURE_SIGNATURES.map((s) => s.id).filter((id) => !covered.has(id))).toEqual([]);
  });

  it('covers each of the four languages', () => {
    const languages = new Set(SIGNATURE_CASES.map((c) => c.name.split(' ')[0]));
    expect([...languages].sort()).toEqual(['go', 'java', 'node', 'python']);
  });

  it('has unique ids, stateless patterns and a location in every root cause', () => {
    const ids = FAILURE_SIGNATURES.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const signature of FAILURE_SIGNATURES) {
      expect(signature.rootCause).toContain('{location}');
      const patterns = [
        ...signature.matchers.map((m) => m.pattern),
        ...signature.subject.extractors.map((e) => e.pattern),
      ];
      // A global or sticky regex keeps lastIndex between tests and would match nondeterministically.
      for (const pattern of patterns) expect(pattern.flags).not.toMatch(/[gy]/);
    }
  });
});

describe('rules analyzer: analysis', () => {
  const npe: ContextInput = {
    platform: 'node',
    type: 'TypeError',
    value: "Cannot read properties of undefined (reading 'total')",
    culprit: 'src/cart/pricing.ts in applyDiscount',
    frames: [
      frame('src/server.ts', 'handle', 12),
      frame('src/cart/pricing.ts', 'applyDiscount', 57, 'const total = cart.summary.total;'),
      frame('node_modules/lodash/lodash.js', 'baseGet', 3021),
    ],
  };

  it('points at the nearest in-app frame, not a library frame, and quotes its line', () => {
    const { analysis } = diagnoseError(errorContext(npe));
    expect(analysis.root_cause).toContain('src/cart/pricing.ts:57 in applyDiscount');
    expect(analysis.root_cause).toContain('`const total = cart.summary.total;`');
    expect(analysis.root_cause).not.toContain('lodash');
    expect(analysis.fix_suggestion).toContain('src/cart/pricing.ts:57 in applyDiscount');
  });

  it('is deterministic: equal contexts give equal analyses', async () => {
    const analyzer = createRulesAnalyzer();
    const signal = new AbortController().signal;
    const first = await analyzer.analyze(errorContext(npe), signal);
    const second = await analyzer.analyze(structuredClone(errorContext(npe)), signal);
    expect(second).toEqual(first);
  });

  it('names itself rules', async () => {
    const analyzer = createRulesAnalyzer();
    expect(analyzer.provider).toBe('rules');
    const analysis = await analyzer.analyze(errorContext(npe), new AbortController().signal);
    expect(analysis.analyzed_by).toBe('rules');
  });

  it('rejects when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(
      createRulesAnalyzer().analyze(errorContext(npe), controller.signal),
    ).rejects.toThrow('shutting down');
  });

  it.each([
    { level: 'fatal', count: 1, expected: /^Fatal: .*First occurrence since 2024-05-01T08:00:00Z/ },
    { level: 'error', count: 1, expected: /^(?!Fatal).*First occurrence/ },
    { level: 'error', count: 4, expected: /Seen 4 times since/ },
    { level: 'error', count: 25, expected: /Recurring: 25 events since/ },
    { level: 'error', count: 1200, expected: /Widespread: 1200 events since .*many requests/ },
  ])('impact reflects level $level and count $count', ({ level, count, expected }) => {
    expect(diagnoseError(errorContext({ ...npe, level, count })).analysis.impact).toMatch(expected);
  });

  it('scores stronger evidence higher: type+text > text only > location only > no match', () => {
    const strong = diagnoseError(errorContext(npe)).analysis.confidence;
    const textOnly = diagnoseError(errorContext({ ...npe, type: 'Error' })).analysis.confidence;
    const locationOnly = diagnoseError(
      errorContext({ title: 'Job failed', culprit: 'alembic.runtime.migration in run_migrations' }),
    ).analysis.confidence;
    const none = diagnoseError(
      errorContext({ type: 'OrderStateError', value: 'order 42 is FROZEN', frames: npe.frames }),
    ).analysis.confidence;
    expect(strong).toBeGreaterThan(textOnly);
    expect(textOnly).toBeGreaterThan(locationOnly);
    expect(locationOnly).toBeGreaterThan(none);
  });
});

describe('rules analyzer: generic fallback', () => {
  it('says what is known, honestly, with low confidence', () => {
    const { signatureId, analysis } = diagnoseError(
      errorContext({
        platform: 'java',
        type: 'com.acme.orders.OrderStateException',
        value: 'order 42 cannot move from FROZEN to SHIPPED',
        culprit: 'com.acme.orders.OrderService in ship',
        frames: [
          frame('OrderController.java', 'com.acme.orders.OrderController.ship', 40),
          frame(
            'OrderService.java',
            'com.acme.orders.OrderService.ship',
            88,
            'throw new OrderStateException(order, target);',
          ),
          frame('Thread.java', 'java.lang.Thread.run', 833),
        ],
      }),
    );
    expect(signatureId).toBeNull();
    expect(analysis.confidence).toBeLessThanOrEqual(0.3);
    expect(analysis.root_cause).toContain('No known failure signature matched');
    expect(analysis.root_cause).toContain(
      'com.acme.orders.OrderStateException: order 42 cannot move from FROZEN to SHIPPED',
    );
    expect(analysis.root_cause).toContain(
      'OrderService.java:88 in com.acme.orders.OrderService.ship',
    );
    expect(analysis.fix_suggestion).toContain('com.acme.orders.OrderStateException');
    expect(analysis.analyzed_by).toBe('rules');
  });

  it.each([
    {
      name: 'exception and location',
      input: { type: 'WeirdError', value: 'x', culprit: 'a in b' },
      max: 0.25,
    },
    { name: 'exception only', input: { type: 'WeirdError', value: 'x' }, max: 0.2 },
    { name: 'nothing', input: { title: 'Something happened' }, max: 0.1 },
  ])('confidence drops with what is known: $name', ({ input, max }) => {
    const { analysis } = diagnoseError(errorContext(input));
    expect(analysis.confidence).toBe(max);
    expect(analysis.root_cause.length).toBeGreaterThan(20);
  });

  it('does not treat a bare generic type as a diagnosis', () => {
    const { signatureId } = diagnoseError(errorContext({ type: 'TypeError', value: 'bad things' }));
    expect(signatureId).toBeNull();
  });
});

describe('rules analyzer: tracker fixtures through buildErrorContext', () => {
  const fixture = (name: string) =>
    buildErrorContext(
      JSON.parse(
        readFileSync(new URL(`../fixtures/errtracker/${name}.json`, import.meta.url), 'utf8'),
      ),
    );

  it.each([
    {
      name: 'event-python-keyerror',
      id: 'missing-key',
      mentions: ["key 'currency'", 'billing/invoices.py:63 in build_line_items'],
    },
    {
      name: 'event-node-typeerror',
      id: 'null-dereference',
      mentions: ["property 'id'", 'profile-service.js:57 in toProfileView'],
    },
    {
      name: 'event-java-npe',
      id: 'null-dereference',
      mentions: ['Customer.getEmail()', 'ConfirmationMailer.java:41 in compose'],
    },
    {
      name: 'event-go-nil-pointer',
      id: 'null-dereference',
      mentions: ['internal/store/profile.go:71 in toProfile'],
    },
  ])('$name diagnoses as $id', ({ name, id, mentions }) => {
    const { signatureId, analysis } = diagnoseError(fixture(name));
    expect(signatureId).toBe(id);
    for (const mention of mentions) expect(analysis.root_cause).toContain(mention);
    expect(analysis.confidence).toBeGreaterThanOrEqual(0.8);
  });
});

describe('isLibraryFrame', () => {
  it.each([
    ['/usr/lib/python3.12/site-packages/requests/adapters.py', 'send', true],
    ['/app/node_modules/express/lib/router/route.js', 'next', true],
    ['node:internal/process/task_queues', 'processTicksAndRejections', true],
    ['internal/process/task_queues.js', 'processTicksAndRejections', true],
    ['/usr/local/go/src/runtime/panic.go', 'runtime.gopanic', true],
    ['Thread.java', 'java.lang.Thread.run', true],
    ['internal/store/profile.go', 'toProfile', false],
    ['billing/invoices.py', 'build_line_items', false],
    ['/app/dist/services/profile-service.js', 'toProfileView', false],
    ['OrderService.java', 'com.acme.orders.OrderService.place', false],
  ])('%s in %s -> %s', (filename, fn, expected) => {
    expect(isLibraryFrame(frame(filename, fn))).toBe(expected);
  });
});
