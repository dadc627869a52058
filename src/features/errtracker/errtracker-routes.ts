import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors, HttpError } from '../../errors.js';
import { operatorKeyOf, operatorOf } from '../../http/access-guards.js';
import { blocked, guarded, noteFailedCredential } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { acceptAnyBody, parseJsonBody } from '../../http/json-body.js';
import type { Services } from '../../services.js';
import { isCanary } from './canary.js';
import { registerExternalEventRoutes } from './external-event-routes.js';
import { handleTrackerDelivery, type TrackerDeliveryServices } from './tracker-webhook.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The error-tracker webhook; its health answer is also the service's readiness check. */
export async function errtrackerRoutes(
  app: FastifyInstance,
  {
    services,
  }: {
    services: TrackerDeliveryServices & Pick<Services, 'failures' | 'operatorKeyFailures'>;
  },
) {
  // spec, step 1: "an unparsable body is treated as an empty object"; so is any non-object,
  // a body that is not UTF-8 or nests deeper than the contract allows, and a body whose
  // content type does not parse.
  acceptAnyBody(
    app,
    (request, raw) => {
      request.rawBody = raw;
      const parsed = parseJsonBody(raw);
      const value = parsed.ok ? parsed.value : {};
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
    },
    { guarded: Boolean(services.config.errtrackerClientSecret) },
  );

  app.get(
    '/webhooks/errtracker/health',
    {
      schema: {
        summary: 'Error-tracker webhook health (the service readiness check)',
        tags: ['webhooks'],
        response: {
          200: Type.Object({ status: Type.Literal('ok'), webhook: Type.Literal('errtracker') }),
        },
      },
    },
    async () => ({ status: 'ok' as const, webhook: 'errtracker' as const }),
  );

  app.post(
    '/webhooks/errtracker/error',
    {
      // Canaries take operator keys: an address blocked for the key it names is refused
      // here too. Nothing is checked otherwise; the tracker signs its deliveries.
      onRequest: guarded(services, (request) =>
        header(request, 'x-operator-key') === undefined
          ? {}
          : { credential: operatorKeyOf(header(request, 'x-operator-id')) },
      ),
      schema: {
        summary: 'Error-tracker issue webhook: canary, signature, dedup, analysis',
        response: {
          // canary_recorded, ignored, deduplicated or accepted, each with its own fields.
          200: Type.Object(
            {
              status: Type.String({
                description: 'canary_recorded, ignored, deduplicated or accepted',
              }),
            },
            { additionalProperties: true },
          ),
          401: ErrorBody,
          415: ErrorBody,
          429: ErrorBody,
          500: ErrorBody,
        },
        tags: ['webhooks'],
        headers: Type.Object({
          'errtracker-hook-signature': Type.Optional(Type.String()),
          'x-operator-id': Type.Optional(Type.String()),
          'x-operator-key': Type.Optional(Type.String()),
        }),
      },
    },
    async (request, reply) => {
      const operatorId = header(request, 'x-operator-id');
      const operatorKey = header(request, 'x-operator-key');
      // A canary takes operator keys (or a hook signature): a wrong key tried here is a
      // guess like any other, logged and counted (CONTRACT, Hostile clients).
      if (
        operatorKey !== undefined &&
        isCanary(request.body) &&
        operatorOf(services.config.operatorKeys, operatorId, operatorKey) === undefined
      ) {
        const waitMs = await noteFailedCredential(services, request, operatorKeyOf(operatorId));
        if (waitMs > 0) throw blocked(reply, waitMs);
      }
      try {
        return await handleTrackerDelivery(services, {
          rawBody: request.rawBody ?? Buffer.alloc(0),
          payload: request.body ?? {},
          signature: header(request, 'errtracker-hook-signature'),
          operatorId,
          operatorKey,
        });
      } catch (error) {
        if (error instanceof HttpError) throw error;
        // spec, step 8: "Any unexpected error returns 500 with the error text as detail."
        request.log.error({ err: error }, 'error-tracker delivery failed');
        throw errors.trackerDeliveryFailed((error as Error).message || String(error));
      }
    },
  );

  await registerExternalEventRoutes(app, services);
}
