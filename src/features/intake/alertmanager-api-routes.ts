import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { ErrorBody } from '../../http/error-body.js';
import type { Services } from '../../services.js';
import { acceptAlertDelivery } from './alert-delivery.js';
import type { AlertIntake } from './alert-intake.js';
import { RECEIVER_TOKEN_SCHEME, takeReceiverDeliveries } from './receiver-routes.js';

/** Alertmanager's postableAlert (api/v2/openapi.yaml): labels required, the rest optional. */
const PostableAlerts = Type.Array(
  Type.Object({
    labels: Type.Record(Type.String(), Type.String()),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    startsAt: Type.Optional(Type.String()),
    endsAt: Type.Optional(Type.String()),
    generatorURL: Type.Optional(Type.String()),
  }),
);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first thing that keeps `body` from being Alertmanager's postable alerts, if any. */
function postableProblem(body: unknown): string | undefined {
  if (!Array.isArray(body)) return 'body must be an array of alerts';
  for (const [index, alert] of body.entries()) {
    if (!isRecord(alert)) return `alert ${index} must be an object`;
    if (!isRecord(alert.labels)) return `alert ${index} has no labels object`;
    for (const field of ['startsAt', 'endsAt'] as const) {
      const value = alert[field];
      if (value !== undefined && (typeof value !== 'string' || Number.isNaN(Date.parse(value)))) {
        return `alert ${index} has an ${field} that is not a date-time`;
      }
    }
  }
  return undefined;
}

/**
 * CONTRACT, Silences, and Alertmanager's own API: `POST /api/v1/alertmanager/api/v2/alerts`
 * takes what Prometheus sends an Alertmanager. An alert whose `endsAt` is absent or ahead is
 * firing, one whose `endsAt` has passed is resolved, and each goes through the pipeline as
 * the same alert in an Alertmanager webhook body would. Answered as Alertmanager does: 200,
 * empty.
 */
export async function alertmanagerApiRoutes(
  untyped: FastifyInstance,
  {
    services,
    intake,
  }: {
    services: Pick<Services, 'clock' | 'config' | 'failures' | 'log' | 'operatorKeyFailures'>;
    intake: AlertIntake;
  },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  takeReceiverDeliveries(app, services);
  app.post(
    '/alerts',
    {
      schema: {
        summary: "Alertmanager API v2: post alerts (Prometheus's alerting.alertmanagers)",
        tags: ['webhooks'],
        security: [{ [RECEIVER_TOKEN_SCHEME]: [] }],
        body: PostableAlerts,
        response: {
          200: Type.String({
            maxLength: 0,
            description: 'Accepted: an empty body, as Alertmanager answers',
          }),
          400: ErrorBody,
          401: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          422: ErrorBody,
        },
      },
      // Validated in the handler: Alertmanager answers a malformed body 400, not 422.
      validatorCompiler: () => (value: unknown) => ({ value }),
    },
    async (request, reply) => {
      const body: unknown = request.body;
      const problem = postableProblem(body);
      if (problem || !Array.isArray(body)) throw errors.badBody(problem ?? 'body is invalid');
      const now = services.clock.now();
      const alerts = body.map((alert: Record<string, unknown>) => {
        const endsAt = typeof alert.endsAt === 'string' ? Date.parse(alert.endsAt) : undefined;
        return {
          ...alert,
          status: endsAt !== undefined && endsAt <= now ? 'resolved' : 'firing',
        };
      });
      await acceptAlertDelivery(
        intake,
        { version: '4', receiver: 'prometheus', alerts },
        services.config.maxAlertsPerBody,
      );
      return reply.code(200).send('');
    },
  );
}
