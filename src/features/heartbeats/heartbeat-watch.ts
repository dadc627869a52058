import { type Static, Type } from 'typebox';
import type { Services } from '../../services.js';
import { repeatEvery } from '../../support/repeat-every.js';
import { typedJob } from '../../support/typed-job.js';
import type { AlertIntake } from '../intake/alert-intake.js';
import { workloadOf } from '../intake/fingerprint.js';
import { addFollowUpJob, completeFollowUpJob, relayFollowUpJobs } from '../outbox/outbox-relay.js';
import {
  dueHeartbeats,
  expireHeartbeat,
  type HeartbeatRow,
  type HeartbeatSettings,
  recordBeat,
  setHeartbeatIncident,
} from './heartbeat-records.js';

/** CONTRACT, Heartbeats: "within 10 seconds" of `expires_at`. */
const SWEEP_EVERY_MS = 5_000;
const SWEEP_BATCH = 100;
export const MISSING_ALERT = 'HeartbeatMissing';
/** The job that opens a missed heartbeat's incident (jobs port: no ':' in the name). */
export const HEARTBEAT_MISSING_JOB = 'heartbeat.missing';
const MISSING_CONCURRENCY = 4;

const MissingPayload = Type.Object({
  name: Type.String({ minLength: 1 }),
  severity: Type.String(),
  namespace: Type.String(),
  last_beat_at: Type.Number(),
  expires_at: Type.Number(),
});
type MissingPayload = Static<typeof MissingPayload>;

const missingPayload = (row: HeartbeatRow): MissingPayload => ({
  name: row.name,
  severity: row.severity,
  namespace: row.namespace,
  last_beat_at: Number(row.last_beat_at),
  expires_at: Number(row.expires_at),
});
/**
 * One per expiry: a beat and a later expiry of the same heartbeat is another job. The name
 * is base64url-encoded: a job id holds no ':' (BullMQ), and names may (`watchdog:…`).
 */
const missingJobId = (payload: MissingPayload) =>
  `heartbeat-missing-${Buffer.from(payload.name).toString('base64url')}-${payload.expires_at}`;

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

export interface HeartbeatWatch {
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
  services: Services,
  intake: AlertIntake,
  resolve: (incidentId: string, actor: string) => Promise<unknown>,
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
    await completeFollowUpJob(services, missingJobId(payload));
  }

  const watch: HeartbeatWatch = {
    async beat(name, settings) {
      const { before, after } = await recordBeat(store.db, name, settings, clock.now());
      if (before?.status === 'expired' && before.incident_id) {
        await resolve(before.incident_id, 'heartbeat');
      }
      return after;
    },
    async sweep() {
      const now = clock.now();
      const expired: MissingPayload[] = [];
      for (const row of await dueHeartbeats(store.db, now, SWEEP_BATCH)) {
        const payload = missingPayload(row);
        // The expiry and the job that opens its incident commit together: a process that
        // dies in between leaves the job to the outbox relay, not a heartbeat without one.
        const moved = await store.db.transaction().execute(async (tx) => {
          if (!(await expireHeartbeat(tx, row.name, now))) return false;
          await addFollowUpJob(
            tx,
            { name: HEARTBEAT_MISSING_JOB, payload, jobId: missingJobId(payload) },
            now,
          );
          return true;
        });
        if (moved) expired.push(payload);
      }
      await relayFollowUpJobs(services, expired.map(missingJobId));
      return expired.length;
    },
    registerWorker() {
      services.jobs.process(
        HEARTBEAT_MISSING_JOB,
        typedJob(HEARTBEAT_MISSING_JOB, MissingPayload, log, openIncident),
        MISSING_CONCURRENCY,
      );
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
