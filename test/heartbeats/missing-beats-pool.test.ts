import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { recordBeat } from '../../src/features/heartbeats/heartbeat-records.js';
import {
  createHeartbeatWatch,
  MISSING_CONCURRENCY,
} from '../../src/features/heartbeats/heartbeat-watch.js';
import type { IncidentMoveDeps } from '../../src/features/incidents/incident-moves.js';
import type { AlertIntake } from '../../src/features/intake/alert-intake.js';
import { createFollowUpWriter } from '../../src/features/outbox/follow-up-writer.js';
import { createOutbox } from '../../src/features/outbox/outbox.js';
import type { JobQueue } from '../../src/ports/jobs.js';
import {
  buildTestApp,
  DISTRIBUTED_ONLY,
  distributedAvailable,
  postSigned,
} from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const COUNT = 40;
/** The service's PostgreSQL pool (postgres-store.ts). */
const POOL_SIZE = 10;

/**
 * CONTRACT, Under races, crashes and abuse (Heartbeats at scale): a burst of missed beats
 * opens their incidents while alerts keep coming in. The jobs that open them must leave
 * connections of the PostgreSQL pool to alert intake: with every job stuck on its heartbeat's
 * row (held here from a connection of the test's own), an alert is still answered.
 */
describe.runIf(distributedAvailable()).each(DISTRIBUTED_ONLY)(
  'missed heartbeats and the database pool, on %s',
  (backend) => {
    it('leaves connections to alert intake while every missed-beat job waits', async () => {
      const { app, env } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
      const { services } = app;
      const settings = { timeout_seconds: 600, severity: 'warning', namespace: 'pool' };
      const beatAt = Date.now();
      for (let index = 0; index < COUNT; index++) {
        await recordBeat(services.store.db, `pool-${index}`, settings, beatAt);
      }

      // A sweep run by the test, ten minutes ahead (the app's own sweep finds nothing due):
      // its jobs reach the queue only once the test holds the heartbeats' rows.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      let reached!: () => void;
      const atQueue = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const jobs: JobQueue = Object.create(services.jobs);
      jobs.enqueue = async (...args) => {
        reached();
        await gate;
        return services.jobs.enqueue(...args);
      };
      const later = { now: () => beatAt + 601_000 };
      // The outbox relays through the gated queue as the service's own relays through its queue.
      const outbox = createOutbox({ ...services, jobs });
      const followUps = createFollowUpWriter({ jobs, outbox });
      const sweep = createHeartbeatWatch(
        { ...services, jobs, outbox, followUps, clock: later },
        {} as AlertIntake,
        {} as IncidentMoveDeps,
      ).sweep();
      await atQueue;

      const url = new URL(env.DATABASE_URL!);
      const schema = url.searchParams.get('schema')!;
      url.searchParams.delete('schema');
      const holder = new pg.Client({ connectionString: url.toString() });
      const observer = new pg.Client({ connectionString: url.toString() });
      await holder.connect();
      await observer.connect();
      try {
        await holder.query('begin');
        await holder.query(`select 1 from "${schema}".heartbeats for update`);
        const holderPid: number = (await holder.query('select pg_backend_pid() as pid')).rows[0]
          .pid;
        open();
        expect(await sweep).toBe(COUNT);

        // Every job the worker runs at once now waits on its row, holding a connection.
        const stuck = Math.min(MISSING_CONCURRENCY, POOL_SIZE);
        await waitFor(
          async () => {
            const { rows } = await observer.query(
              `select count(*)::int as n from pg_stat_activity
                where $1 = any(pg_blocking_pids(pid)) and query ilike '%heartbeats%'`,
              [holderPid],
            );
            return rows[0].n >= stuck ? true : undefined;
          },
          { what: `${stuck} missed-beat jobs waiting on their rows`, timeoutMs: 30_000 },
        );

        const alert = await postSigned(app, '/api/v1/webhooks/alerts', {
          alert_name: 'KubePodCrashLooping',
          severity: 'warning',
          namespace: 'pool',
          target_resource: 'checkout-1',
        });
        expect(alert.statusCode).toBe(200);
        expect(alert.json()).toMatchObject({ status: 'created' });
      } finally {
        await holder.query('rollback').catch(() => undefined);
        await holder.end();
        await observer.end();
      }

      // Released, every missed beat gets its incident.
      await waitFor(
        async () => {
          const rows = await services.store.db
            .selectFrom('heartbeats')
            .select('name')
            .where('incident_id', 'is not', null)
            .execute();
          return rows.length === COUNT ? true : undefined;
        },
        { what: 'an incident for every missed heartbeat', timeoutMs: 60_000 },
      );
    }, 120_000);
  },
);
