import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, HMAC_REASONS } from '../../errors.js';
import type { Services } from '../../services.js';
import { verifyWebhookSignature } from './webhook-signature.js';

/** CONTRACT, Extensions: deliveries older than 5 minutes are rejected. */
export const REPLAY_WINDOW_SECONDS = 300;

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
 * Keeps the raw body for signature checks, in the scope of the signed routes only. The
 * body is parsed here but a parse error is held back: the signature is checked first.
 */
export function acceptSignedJson(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => {
    const buffer = raw as Buffer;
    request.rawBody = buffer;
    if (buffer.length === 0) {
      request.bodyParseError = 'the body is empty';
      return done(null, undefined);
    }
    try {
      done(null, JSON.parse(buffer.toString('utf8')));
    } catch (error) {
      request.bodyParseError = (error as Error).message;
      done(null, undefined);
    }
  });
}

/** preValidation hook of the alert and signal webhooks: signature, replay guard, then JSON. */
export function verifySignedWebhook(services: Services) {
  const { config, clock, once } = services;
  const secrets = [config.webhookSecret, config.webhookSecretPrevious].filter(
    (secret): secret is string => Boolean(secret),
  );
  return async (request: FastifyRequest) => {
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
        toleranceSeconds: REPLAY_WINDOW_SECONDS,
      },
    );
    if (!verdict.ok) throw errors.hmacFailed(verdict.reason);
    const deliveryId = headerValue(request, 'x-delivery-id');
    if (verdict.checked && timestamp !== undefined && deliveryId) {
      const first = await once.claim('webhook-delivery', deliveryId, REPLAY_WINDOW_SECONDS);
      if (!first) throw errors.hmacFailed(HMAC_REASONS.replayed);
    }
    if (request.rawBody === undefined) throw errors.invalidJson('the body is empty');
    if (request.bodyParseError !== undefined) throw errors.invalidJson(request.bodyParseError);
  };
}
