import { describe, expect, it } from 'vitest';
import { recordBeat } from '../../src/features/heartbeats/heartbeat-records.js';
import { createHeartbeatWatch } from '../../src/features/heartbeats/heartbeat-watch.js';
import type { IncidentMoveDeps } from '../../src/features/incidents/incident-moves.js';
import type { AlertIntake } from '../../src/features/intake/alert-intake.js';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const COUNT = 1000;

/**
 * CONTRACT, Under races, crashes and abuse (Heartbeats at scale): 1,000 heartbeats expiring
 * in the same second are all `expired`, each with its incident, within 10 s.
 */
describe.each(backends())('1,000 heartbeats due at once, on %s', (backend) => {
  it('one sweep pass expires them all, and each opens its incident', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    const { services } = app;
    const { db } = services.store;
    const settings = { timeout_seconds: 10, severity: 'warning', namespace: 'batch' };
    for (let index = 0; index < COUNT; index++) {
      await recordBeat(db, `job-${String(index).padStart(4, '0')}`, settings, clock.now());
    }
    clock.advance(10_500);

    // A sweep of the app's own kind, run by the test; the app's worker opens the incidents.
    // The sweep reads no alert: it only expires rows and queues the jobs that open incidents.
    const sweep = createHeartbeatWatch(services, {} as AlertIntake, {} as IncidentMoveDeps);
    await sweep.sweep();
    const statuses = await db
      .selectFrom('heartbeats')
      .select(['status'])
      .where('status', '=', 'expired')
      .execute();
    expect(statuses).toHaveLength(COUNT);

    const rows = await waitFor(
      async () => {
        const found = await db
          .selectFrom('heartbeats')
          .select(['name', 'incident_id'])
          .where('incident_id', 'is not', null)
          .execute();
        return found.length === COUNT ? found : undefined;
      },
      { what: 'an incident for every heartbeat', timeoutMs: 120_000 },
    );
    expect(new Set(rows.map((row) => row.incident_id)).size).toBe(COUNT);
    const incidents = await db
      .selectFrom('incidents')
      .select(['target_resource'])
      .where('alert_name', '=', 'HeartbeatMissing')
      .execute();
    expect(new Set(incidents.map((row) => row.target_resource))).toEqual(
      new Set(rows.map((row) => row.name)),
    );
  }, 180_000);
});
