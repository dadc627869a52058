import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from '../services.js';
import { watchOperatorGauges } from './operator-gauges.js';

/**
 * `/metrics` (Prometheus text, with the operator gauges counted at each scrape), `/openapi.json`,
 * and request timing by route template.
 * Wrapped with fastify-plugin so the timing hook sees every route, not just these.
 */
export const observabilityRoutes = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    const { httpRequestDuration, registry } = services.metrics;
    watchOperatorGauges(services);
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      httpRequestDuration
        .labels(request.method, route, String(reply.statusCode))
        .observe(reply.elapsedTime / 1000);
      done();
    });
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'observability' },
);
