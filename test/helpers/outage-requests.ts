import type { FastifyInstance } from 'fastify';

/** What `work` answered, and how many milliseconds it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

/** An unsigned flat alert that opens an incident for `target` in `namespace`. */
export function openIncident(app: FastifyInstance, namespace: string, target: string) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/webhooks/alerts',
    payload: {
      alert_name: 'KubePodCrashLooping',
      severity: 'warning',
      namespace,
      target_resource: target,
    },
  });
}
