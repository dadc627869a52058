import { describe, expect, it } from 'vitest';
import { approvalsOnResolve } from '../../src/features/approvals/expired-approval.js';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { sweepSilentIncidents } from '../../src/features/incidents/incident-timeout.js';
import {
  buildTestApp,
  DISTRIBUTED_ONLY,
  distributedAvailable,
  postSigned,
  TestClock,
} from '../helpers/build-app.js';
import { holdRowLock } from '../helpers/row-lock.js';

const ENV = { SIGNAL_CONSUMER: 'false', INCIDENT_TIMEOUT_SECONDS: '600' };

const firing = {
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'timeout-race',
  target_resource: 'late-1',
};

/**
 * CONTRACT, Under races, crashes and abuse, Resolving: "The timeout sweep resolves only an
 * incident whose last alert is still older than INCIDENT_TIMEOUT_SECONDS when its row is
 * locked." The sweep picks the incident as silent; an alert reaches its row first (a second
 * connection holds the row, the alert first in line) and commits; then the sweep locks it.
 * PostgreSQL only: SQLite runs one writing transaction at a time, and its wait for the write
 * lock blocks the whole process, so no second connection in this one can order them.
 */
describe.runIf(distributedAvailable()).each(DISTRIBUTED_ONLY)(
  'the timeout sweep racing an alert on %s',
  (backend) => {
    it('leaves open an incident that an alert reached after the sweep picked it', async () => {
      const clock = new TestClock();
      const { app, env } = await buildTestApp({ backend, env: ENV, clock });
      const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing)).json();
      // The app's own sweep (every 5 s, on the app's clock) never finds it silent; this one
      // runs 601 s after the incident opened, so it picks the incident, while the alert comes
      // 60 s after the opening, well inside the timeout.
      const sweepClock = new TestClock(clock.now() + 601_000);
      clock.advance(60_000);
      const held = await holdRowLock(env.DATABASE_URL!, 'incidents', created.incident_id);
      try {
        const alerting = postSigned(app, '/api/v1/webhooks/alerts', firing);
        await held.waiter('update "incidents" set "hit_count"', 'the alert waiting on the row');
        const services = { ...app.services, clock: sweepClock };
        const sweeping = sweepSilentIncidents({
          services,
          approvals: approvalsOnResolve({ services, cards: createCardSender(app.services) }),
        });
        await held.waiter('update "incidents" set "status"', 'the sweep behind the alert');
        await held.release();
        expect((await alerting).json()).toMatchObject({
          status: 'converged',
          incident_id: created.incident_id,
          hit_count: 2,
        });
        expect(await sweeping).toBe(0);
      } finally {
        await held.release();
      }
      const after = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
      expect(after).toMatchObject({ status: 'open', resolved_by: null, hit_count: 2 });
      expect(after.timeline.map((entry: { event: string }) => entry.event)).toEqual(['opened']);
    });
  },
);
