import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

export const URL = '/api/v1/webhooks/alerts';
export const env = { SIGNAL_CONSUMER: 'false' };

export function crashLoop() {
  return {
    alert_name: 'KubePodCrashLooping',
    severity: 'critical',
    source: 'prometheus',
    target_resource: 'checkout-7d9f8b6c5-x2x4z',
    // A namespace of its own: a new incident, never one converged into.
    namespace: `ns-${crypto.randomBytes(4).toString('hex')}`,
    message: 'restarting',
  };
}

/** The one stand-in here: the real queue, except that every enqueue is refused. */
export function refuseEnqueues(app: FastifyInstance) {
  return vi
    .spyOn(app.services.jobs, 'enqueue')
    .mockRejectedValue(new Error('queue unavailable (test)'));
}

export function triggeredEntries(app: FastifyInstance, approvalId: string) {
  return app.services.store.db
    .selectFrom('operation_log')
    .select('id')
    .where('approval_id', '=', approvalId)
    .where('type', '=', 'AUTO_REPAIR_TRIGGERED')
    .execute();
}

export async function followedUp(app: FastifyInstance, approvalId: string) {
  return waitFor(
    async () => ((await triggeredEntries(app, approvalId)).length > 0 ? true : undefined),
    { what: 'the repair evaluation of the new incident', timeoutMs: 15_000 },
  );
}
