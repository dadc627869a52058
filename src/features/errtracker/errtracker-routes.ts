import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../services.js';

/** The error-tracker webhook; its health answer is also the service's readiness check. */
export async function errtrackerRoutes(app: FastifyInstance, _options: { services: Services }) {
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
}
