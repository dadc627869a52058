import type { Services } from '../../services.js';
import { repeatEvery } from '../../support/repeat-every.js';
import type { AlertIntake } from '../intake/alert-intake.js';
import { workloadOf } from '../intake/fingerprint.js';
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

  async function openIncident(row: HeartbeatRow) {
    const result = await intake.accept(
      {
        alert_name: MISSING_ALERT,
        alert_type: MISSING_ALERT,
        severity: row.severity,
        source: 'heartbeat',
        target_resource: row.name,
        namespace: row.namespace,
        workload: workloadOf(row.name),
        message: `No heartbeat from ${row.name} since ${iso(row.last_beat_at)}`,
        labels: { heartbeat: row.name },
        annotations: {},
        status: 'firing',
      },
      'heartbeat',
      { requestedBy: 'heartbeat' },
    );
    await setHeartbeatIncident(store.db, row.name, result.incident_id);
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
      let expired = 0;
      for (const row of await dueHeartbeats(store.db, now, SWEEP_BATCH)) {
        if (!(await expireHeartbeat(store.db, row.name, now))) continue;
        expired++;
        await openIncident(row);
      }
      return expired;
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
