import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DependencyCheck, Services } from '../services.js';
import { withDeadline } from '../support/deadline.js';

/** Each dependency must answer its round trip within this, or the replica is not ready. */
export const READINESS_CHECK_TIMEOUT_MS = 1000;

const CheckResult = Type.Object({
  status: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  latency_ms: Type.Integer({ description: 'time the round trip took, or was given up after' }),
  error: Type.Optional(
    Type.String({ description: 'why it is down: `timeout` or `unavailable` (details in the log)' }),
  ),
});
const Checks = Type.Record(Type.String(), CheckResult, {
  description: '`database` always; `redis` when REDIS_URL is set',
});

type CheckOutcome = {
  status: 'up' | 'down';
  latency_ms: number;
  error?: 'timeout' | 'unavailable';
};

class CheckTimedOut extends Error {}

async function runCheck(dependency: DependencyCheck, services: Services): Promise<CheckOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    await withDeadline(
      dependency.ping(),
      READINESS_CHECK_TIMEOUT_MS,
      () => new CheckTimedOut(`no answer within ${READINESS_CHECK_TIMEOUT_MS} ms`),
    );
    return { status: 'up', latency_ms: elapsed() };
  } catch (error) {
    services.log.warn({ err: error, dependency: dependency.name }, 'readiness: dependency down');
    const reason = error instanceof CheckTimedOut ? 'timeout' : 'unavailable';
    return { status: 'down', latency_ms: elapsed(), error: reason };
  }
}

/**
 * `/livez`: the process answers (restart it when not). `/readyz`: every dependency answers a
 * round trip (a trivial query, Redis PING) within a short timeout; a replica that is not
 * ready should get no traffic but needs no restart. The spec's
 * `/webhooks/errtracker/health` stays a liveness answer.
 */
export async function readinessRoutes(untyped: FastifyInstance, opts: { services: Services }) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = opts;

  app.get(
    '/livez',
    {
      schema: {
        summary: 'Liveness: the process is up',
        tags: ['observability'],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the database and Redis (when configured) answer',
        tags: ['observability'],
        response: {
          200: Type.Object({ status: Type.Literal('ready'), checks: Checks }),
          503: Type.Object({
            status: Type.Literal('not_ready'),
            failing: Type.Array(Type.String(), { description: 'the dependencies that are down' }),
            checks: Checks,
          }),
        },
      },
    },
    async (_request, reply) => {
      const outcomes = await Promise.all(
        services.dependencies.map(async (d) => [d.name, await runCheck(d, services)] as const),
      );
      const checks = Object.fromEntries(outcomes);
      const failing = outcomes.filter(([, o]) => o.status === 'down').map(([name]) => name);
      if (failing.length === 0) return { status: 'ready' as const, checks };
      return reply.code(503).send({ status: 'not_ready' as const, failing, checks });
    },
  );
}
