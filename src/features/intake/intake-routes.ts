import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { ErrorBody } from '../../http/error-body.js';
import { DependencyUnavailableError } from '../../ports/unavailable.js';
import type { Services } from '../../services.js';
import {
  AlertDeliveryBody,
  AlertDeliveryResponses,
  acceptAlertDelivery,
  validateLater,
} from './alert-delivery.js';
import type { AlertIntake } from './alert-intake.js';
import { createSignalAppend } from './signal-append.js';
import {
  createSignalBacklog,
  SIGNALS_BACKLOG_LIMIT,
  SIGNALS_BACKLOG_RETRY_AFTER_SECONDS,
} from './signal-backlog.js';
import {
  SIGNALS_STREAM,
  SignalBody,
  SignalResponse,
  signalToStreamFields,
} from './signal-schema.js';
import { acceptJsonOfAnyType, refuseUnsignedEarly, verifySignedWebhook } from './signed-json.js';

const signatureHeaders = Type.Object({
  'x-signature-256': Type.Optional(Type.String({ description: 'sha256=<hex HMAC of the body>' })),
  'x-signature-timestamp': Type.Optional(
    Type.String({ description: 'unix seconds; the signature then covers `<timestamp>.<body>`' }),
  ),
});

/** The signed alert and signal webhooks (spec, Webhooks). */
export async function intakeRoutes(
  untyped: FastifyInstance,
  {
    services,
    intake,
  }: {
    services: Pick<Services, 'clock' | 'config' | 'log' | 'metrics' | 'once' | 'store' | 'stream'>;
    intake: AlertIntake;
  },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = services;
  acceptJsonOfAnyType(app, {
    guarded: Boolean(config.webhookSecret || config.webhookSecretPrevious),
  });
  app.addHook('onRequest', refuseUnsignedEarly(services.config));
  app.addHook('preValidation', verifySignedWebhook(services));
  const { clock } = services;
  const backlog = createSignalBacklog(services);
  const signals = createSignalAppend(services, backlog);
  /** A stream that is down or hung is a 503 to retry (CONTRACT, Under races, crashes and abuse). */
  const signalFailure = (error: unknown) => {
    if (error instanceof DependencyUnavailableError) {
      return errors.signalNotProduced(error.message, true);
    }
    if (services.store.isUnavailable(error)) {
      return errors.signalNotProduced(errors.databaseUnavailable().detail, true);
    }
    return errors.signalNotProduced((error as Error).message);
  };

  app.post(
    '/webhooks/signals',
    {
      schema: {
        summary: 'Accept a light signal onto the platform:signals stream',
        tags: ['webhooks'],
        headers: signatureHeaders,
        body: SignalBody,
        response: {
          200: SignalResponse,
          400: ErrorBody,
          401: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          422: ErrorBody,
          500: ErrorBody,
          503: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const signal = request.body;
      let messageId: string;
      // CONTRACT, Signals under overload: refuse rather than accept what trimming would drop.
      let unhandled: number;
      try {
        unhandled = (await backlog.current()).count;
      } catch (error) {
        request.log.error({ err: error }, 'signal backlog not read');
        throw signalFailure(error);
      }
      if (unhandled >= SIGNALS_BACKLOG_LIMIT) {
        // Back-pressure, not a fault: answered here, without an error log line per request
        // (the backlog logs when it fills and when it drains).
        reply.header('retry-after', String(SIGNALS_BACKLOG_RETRY_AFTER_SECONDS));
        return reply.code(503).send(errors.signalBacklogFull(unhandled).body);
      }
      try {
        const fields = signalToStreamFields(signal, new Date(clock.now()));
        messageId = await signals.append(fields);
      } catch (error) {
        request.log.error({ err: error }, 'signal not written to the stream');
        throw signalFailure(error);
      }
      signals.produced(signal.severity ?? 'warning');
      return { success: true, message_id: messageId, stream: SIGNALS_STREAM };
    },
  );

  app.post(
    '/webhooks/alerts',
    {
      schema: {
        summary: 'Accept a flat alert or an Alertmanager (version 4) webhook',
        tags: ['webhooks'],
        headers: signatureHeaders,
        body: AlertDeliveryBody,
        response: AlertDeliveryResponses,
      },
      validatorCompiler: validateLater,
    },
    async (request) => acceptAlertDelivery(intake, request.body, services.config.maxAlertsPerBody),
  );
}
