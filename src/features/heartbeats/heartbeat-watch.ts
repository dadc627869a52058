import { type Static, Type } from 'typebox';
import type { Services } from '../../services.js';
import { repeatEvery } from '../../support/repeat-every.js';
import { type IncidentMoveDeps, resolveIncident } from '../incidents/incident-moves.js';
import type { AlertIntake, WatchdogBeats } from '../intake/alert-intake.js';
import { workloadOf } from '../intake/fingerprint.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import {
  dueHeartbeats,
  expireHeartbeat,
  type HeartbeatRow,
  type HeartbeatSettings,
  recordBeat,
  setHeartbeatIncident,
} from './heartbeat-records.js';

/**
 * CONTRACT, Heartbeats: "within 10 seconds" of `expires_at`; at scale (Under races, crashes
 * and abuse), 1,000 at once. A pass every 2 s leaves most of the 10 s to open the incidents;
 * a pass with nothing due is one indexed query.
 */
const SWEEP_EVERY_MS = 2_000;
/** Heartbeats expired per transaction: a short write, so alerts are not kept waiting. */
const SWEEP_BATCH = 100;
export const MISSING_ALERT = 'HeartbeatMissing';

/**
 * Incidents opened side by side per process. 1,000 missed beats at 4 at a time took longer
 * than the contract's 10 s on PostgreSQL (Heartbeats at scale); and a job holds a database
 * connection while it runs, so at the pool's size (10, postgres-store.ts) a burst of them
 * would leave alert intake waiting for a connection. 6 leaves intake 4.
 */
export const MISSING_CONCURRENCY = 6;

/**
 * The job that opens a missed heartbeat's incident, one per expiry: a beat and a later
 * expiry of the same heartbeat is another job. The name is base64url-encoded: a job id holds
 * no ':' (BullMQ), and names may (`watchdog:…`).
 */
export const HEARTBEAT_MISSING_JOB = jobKind(
  'heartbeat.missing',
  Type.Object({
    name: Type.String({ minLength: 1 }),
    severity: Type.String(),
    namespace: Type.String(),
    last_beat_at: Type.Number(),
    expires_at: Type.Number(),
  }),
  (payload) =>
    `heartbeat-missing-${Buffer.from(payload.name).toString('base64url')}-${payload.expires_at}`,
);
type MissingPayload = Static<typeof HEARTBEAT_MISSING_JOB.payload>;

const missingPayload = (row: HeartbeatRow): MissingPayload => ({
  name: row.name,
  severity: row.severity,
  namespace: row.namespace,
  last_beat_at: Number(row.last_beat_at),
  expires_at: Number(row.expires_at),
});
const iso = (ms: number) => new Date(Number(ms)).toISOString();

/** A heartbeat as the API answers it. */
export function heartbeatView(row: HeartbeatRow) {
  return {
    name: row.name,
    status: row.status,
    timeout_seconds: row.timeout_seconds,
    last_beat_at: iso(row.last_beat_at),
    expires_at: iso(row.expires_at),
    incident_id: row.incident_id,
  };
}

export interface HeartbeatWatch extends WatchdogBeats {
  /** Records a beat; the beat after a missed one resolves the incident the miss opened. */
  beat(name: string, settings: HeartbeatSettings): Promise<HeartbeatRow>;
  /** Expires every heartbeat past its time, opening one incident each; answers how many. */
  sweep(): Promise<number>;
  /** Registers the job that opens a missed heartbeat's incident; before `jobs.start()`. */
  registerWorker(): void;
  start(): { stop(): Promise<void> };
}

/**
 * CONTRACT, Heartbeats: silence from a source is news. A missed beat opens one incident
 * through the alert pipeline, once across replicas (the heartbeat's status moves by
 * compare-and-set); the next beat resolves it (`resolved_by` `heartbeat`).
 */
export function createHeartbeatWatch(
  services: Pick<Services, 'clock' | 'config' | 'followUps' | 'jobs' | 'log' | 'outbox' | 'store'>,
  intake: AlertIntake,
  incidentMoves: IncidentMoveDeps,
): HeartbeatWatch {
  const { store, clock, log } = services;

  async function openIncident(payload: MissingPayload) {
    const result = await intake.accept(
      {
        alert_name: MISSING_ALERT,
        alert_type: MISSING_ALERT,
        severity: payload.severity,
        source: 'heartbeat',
        target_resource: payload.name,
        namespace: payload.namespace,
        workload: workloadOf(payload.name),
        message: `No heartbeat from ${payload.name} since ${iso(payload.last_beat_at)}`,
        labels: { heartbeat: payload.name },
        annotations: {},
        status: 'firing',
      },
      'heartbeat',
      { requestedBy: 'heartbeat' },
    );
    await setHeartbeatIncident(store.db, payload.name, result.incident_id);
    await services.outbox.complete(HEARTBEAT_MISSING_JOB.idOf(payload));
  }

  const watch: HeartbeatWatch = {
    beatWatchdog(receiver) {
      return watch.beat(watchdogHeartbeatName(receiver), {
        timeout_seconds: services.config.watchdogTimeoutSeconds,
        severity: 'warning',
        namespace: 'default',
      });
    },
    async beat(name, settings) {
      const { before, after } = await recordBeat(store.db, name, settings, clock.now());
      if (before?.status === 'expired' && before.incident_id) {
        await resolveIncident(incidentMoves, before.incident_id, 'heartbeat');
      }
      return after;
    },
    async sweep() {
      const now = clock.now();
      let count = 0;
      // CONTRACT, Under races, crashes and abuse (Heartbeats at scale): 1,000 heartbeats due
      // in one second all expire within 10 s, so one pass takes every one due, a batch per
      // transaction, letting requests in between batches.
      for (;;) {
        const rows = await dueHeartbeats(store.db, now, SWEEP_BATCH);
        if (rows.length === 0) break;
        // The expiries and the jobs that open their incidents commit together: a process
        // that dies in between leaves the jobs to the outbox relay, not heartbeats without.
        const expired = await store.db.transaction().execute(async (tx) => {
          const moved: MissingPayload[] = [];
          // In the order dueHeartbeats gives, the same on every replica: two sweeps lock
          // rows in one order and never deadlock.
          for (const row of rows) {
            if (await expireHeartbeat(tx, row.name, now)) moved.push(missingPayload(row));
          }
          const jobs = moved.map((payload) => jobOf(HEARTBEAT_MISSING_JOB, payload));
          if (jobs.length > 0) await services.followUps.add(tx, jobs, now);
          return jobs;
        });
        await services.followUps.relay(expired);
        count += expired.length;
        if (rows.length < SWEEP_BATCH) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      return count;
    },
    registerWorker() {
      processJobs(services, HEARTBEAT_MISSING_JOB, openIncident, MISSING_CONCURRENCY);
    },
    start() {
      return repeatEvery(
        SWEEP_EVERY_MS,
        () => watch.sweep(),
        (error) => log.warn({ err: error }, 'heartbeat sweep failed'),
      );
    },
  };
  return watch;
}

/** CONTRACT, Heartbeats: `watchdog:<receiver>`, kept to the characters a name may hold. */
export function watchdogHeartbeatName(receiver: string): string {
  return `watchdog:${receiver.replace(/[^A-Za-z0-9._:-]/g, '_')}`.slice(0, 128);
}
