import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  buildTestApp,
  DISTRIBUTED_ONLY,
  distributedAvailable,
  postSigned,
  TestClock,
} from '../helpers/build-app.js';
import { holdRowLock } from '../helpers/row-lock.js';

const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` };
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

const firing = (target: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'after-resolve',
  target_resource: target,
});

const incident = async (app: FastifyInstance, id: string) =>
  (await app.inject(`/api/v1/incidents/${id}`)).json();

/**
 * Resolves the incident and sends a firing alert of its fingerprint while a second
 * connection holds the incident's row, the resolve first in line: the alert reads the
 * incident unresolved, then reaches its row after the resolve committed.
 */
async function alertJustAfterResolve(app: FastifyInstance, databaseUrl: string, id: string) {
  const held = await holdRowLock(databaseUrl, 'incidents', id);
  try {
    const resolving = app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${id}/resolve`,
      headers: alice,
    });
    await held.waiter('update "incidents" set "status"', 'the resolve waiting on the row');
    const alerting = postSigned(app, '/api/v1/webhooks/alerts', firing('raced-1'));
    await held.waiter('update "incidents" set "hit_count"', 'the alert behind the resolve');
    await held.release();
    const [resolved, alert] = await Promise.all([resolving, alerting]);
    expect(resolved.statusCode).toBe(200);
    return alert.json();
  } finally {
    await held.release();
  }
}

/**
 * CONTRACT, Under races, crashes and abuse, Resolving: "A firing alert whose fingerprint
 * matches an incident resolved at the moment the alert is handled reopens it (or opens a new
 * one, by the 5-minute rule); it never converges silently into a resolved incident."
 * PostgreSQL only: SQLite runs one writing transaction at a time, so there the alert reads
 * the incident after the resolve or before it begins.
 */

describe.runIf(distributedAvailable()).each(DISTRIBUTED_ONLY)(
  'a firing alert handled as its incident resolves, on %s',
  (backend) => {
    it('reopens an incident younger than 5 minutes', async () => {
      const { app, env } = await buildTestApp({ backend, env: ENV });
      const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('raced-1'))).json();
      const alert = await alertJustAfterResolve(app, env.DATABASE_URL!, created.incident_id);
      expect(alert).toMatchObject({
        status: 'converged',
        incident_id: created.incident_id,
        hit_count: 2,
      });
      const after = await incident(app, created.incident_id);
      expect(after).toMatchObject({ status: 'open', reopen_count: 1, resolved_by: null });
      expect(after.timeline.map((entry: { event: string }) => entry.event)).toEqual([
        'opened',
        'resolved',
        'reopened',
      ]);
    });

    it('opens a new incident when the resolved one is older than 5 minutes', async () => {
      const clock = new TestClock();
      const { app, env } = await buildTestApp({ backend, env: ENV, clock });
      const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('raced-1'))).json();
      // Older than 5 minutes, still joinable while its approval is pending: the alert looks it
      // up as an incident to join, and finds it resolved (its approval expired) at its row.
      clock.advance(10 * 60_000);
      const alert = await alertJustAfterResolve(app, env.DATABASE_URL!, created.incident_id);
      expect(alert).toMatchObject({ status: 'created', hit_count: 1 });
      expect(alert.incident_id).not.toBe(created.incident_id);
      const old = await incident(app, created.incident_id);
      expect(old).toMatchObject({ status: 'resolved', hit_count: 1, reopen_count: 0 });
      expect(await incident(app, alert.incident_id)).toMatchObject({ status: 'open' });
    });
  },
);
