import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
} from 'fastify';
import { BODY_PROBLEMS, errors, HMAC_REASONS } from '../../errors.js';
import { acceptAnyBody, parseJsonBody } from '../../http/json-body.js';
import type { Services } from '../../services.js';
import { type TimestampTolerance, verifyWebhookSignature } from './webhook-signature.js';

/**
 * CONTRACT, Extensions: deliveries more than 5 minutes old or more than 1 minute ahead are
 * rejected.
 */
export const TIMESTAMP_TOLERANCE: TimestampTolerance = { pastSeconds: 300, futureSeconds: 60 };

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
    bodyParseError?: string;
  }
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads every body as JSON whatever its declared type (senders such as Alertmanager and
 * signing proxies vary, and a malformed type is no reason to refuse), keeping the raw bytes
 * for signature checks, in the scope of the webhooks only. A parse error is held back until
 * requireJsonBody: the signature or token is checked first.
 */
export function acceptJsonOfAnyType(scope: FastifyInstance, guard: { guarded: boolean }): void {
  acceptAnyBody(
    scope,
    (request, raw) => {
      request.rawBody = raw;
      const parsed = parseJsonBody(raw);
      if (parsed.ok) return parsed.value;
      request.bodyParseError = parsed.problem;
      return undefined;
    },
    guard,
  );
}

/**
 * onRequest hook of the signed webhooks: what can be refused without the body is refused
 * before it is read (CONTRACT, Hostile clients), with the answer the signature check would
 * give: no secret in `prod`, or no signature header where one is needed.
 */
export function refuseUnsignedEarly(config: Services['config']) {
  const secrets = Boolean(config.webhookSecret || config.webhookSecretPrevious);
  // Callback style, not async: every webhook request runs it, and a promise each time shows.
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (!secrets && config.appEnv === 'prod') {
      return done(errors.hmacFailed(HMAC_REASONS.missingSecret));
    }
    if (secrets && headerValue(request, 'x-signature-256') === undefined) {
      return done(errors.hmacFailed(HMAC_REASONS.missingHeader));
    }
    done();
  };
}

/** preValidation hook of the alert and signal webhooks: signature, replay guard, then JSON. */
export function verifySignedWebhook(services: Pick<Services, 'clock' | 'config' | 'once'>) {
  const { config, clock, once } = services;
  const secrets = [config.webhookSecret, config.webhookSecretPrevious].filter(
    (secret): secret is string => Boolean(secret),
  );
  // Callback style: only a delivery with a timestamp waits, for its replay claim.
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const timestamp = headerValue(request, 'x-signature-timestamp');
    const verdict = verifyWebhookSignature(
      {
        rawBody: request.rawBody ?? Buffer.alloc(0),
        signature: headerValue(request, 'x-signature-256'),
        timestamp,
      },
      {
        secrets,
        rejectWhenUnset: config.appEnv === 'prod',
        nowMs: clock.now(),
        tolerance: TIMESTAMP_TOLERANCE,
      },
    );
    if (!verdict.ok) return done(errors.hmacFailed(verdict.reason));
    const bodyChecked = () => {
      try {
        requireJsonBody(request);
      } catch (error) {
        return done(error as Error);
      }
      done();
    };
    if (verdict.replayKey === undefined) return bodyChecked();
    // The replay key is the signature itself: X-Delivery-Id is not signed, so a captured
    // delivery sent again with that header changed or dropped must still be caught. The
    // claim lives exactly as long as the timestamp can still be accepted.
    once.claim('webhook-signature', verdict.replayKey, verdict.acceptableFor).then(
      (first) => (first ? bodyChecked() : done(errors.hmacFailed(HMAC_REASONS.replayed))),
      // Never done() without an error: an empty rejection would read as a passed check.
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  };
}

/**
 * The held-back body problem of acceptJsonOfAnyType, as a 400 naming it. A compressed body
 * is refused by name (415) rather than read as bytes that are not UTF-8.
 */
export function requireJsonBody(request: FastifyRequest): void {
  const coding = headerValue(request, 'content-encoding')?.trim();
  if (coding && coding.toLowerCase() !== 'identity') {
    throw errors.unsupportedContentEncoding(coding);
  }
  if (request.rawBody === undefined) throw errors.badBody(BODY_PROBLEMS.empty);
  if (request.bodyParseError !== undefined) throw errors.badBody(request.bodyParseError);
}
