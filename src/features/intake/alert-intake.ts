import type { Store } from '../../ports/store.js';
import type { Services } from '../../services.js';
import type { Escalation } from '../escalation/escalation.js';
import { createFollowUpRelay } from '../escalation/incident-followup.js';
import { publishEvent } from '../events/feed-events.js';
import { type IncidentMoveDeps, resolveIncident } from '../incidents/incident-moves.js';
import { unresolvedIncidentOf } from '../incidents/incident-records.js';
import type { Silences } from '../silences/silences.js';
import { alertIdAt } from './alert-id.js';
import type { AlertTypeRule } from './alert-type-rules.js';
import { resolveAlertType } from './alert-types.js';
import { type ConvergeResult, createConverger, recordAlert, type TypedAlert } from './converge.js';
import { createConvergedEvents } from './converged-events.js';
import { approvalRequestOf } from './create-incidents.js';
import { createFingerprinter, workloadOf } from './fingerprint.js';
import { type FlatAlert, incidentSeverity } from './normalize-alert.js';
import { insertSignalOutcomes, signalOutcomesOf } from './signal-outcome-records.js';
import { silenceLabels } from './silence-labels.js';

export interface ResolvedResult {
  status: 'resolved';
  alert_id: string;
  fingerprint: string;
  incident_id: string | null;
  analysis_scheduled: false;
}

/** CONTRACT, Silences: a muted alert's result; it created and changed nothing. */
export interface SilencedResult {
  status: 'silenced';
  alert_id: string;
  fingerprint: string;
  silence_id: string;
  incident_id: null;
}

/** CONTRACT, Heartbeats: a firing `Watchdog` alert is a beat, and opens nothing. */
export interface HeartbeatResult {
  status: 'heartbeat';
  alert_id: string;
  fingerprint: string;
  incident_id: null;
  analysis_scheduled: false;
}

export type AlertResult = ConvergeResult | ResolvedResult | SilencedResult | HeartbeatResult;

/** Alertmanager's dead man's switch: the alert that always fires while monitoring works. */
const WATCHDOG = 'Watchdog';

export interface AlertIntake {
  accept(
    alert: FlatAlert,
    origin: string,
    /** `receiver`: the Alertmanager receiver (or `prometheus`) an alert came through. */
    options?: {
      signalEntryId?: string;
      /**
       * How the signal entry was handled before (`null`: never), when a consumer looked its
       * whole batch up at once; left out, it is read here.
       */
      signalOutcomeBefore?: string | null;
      requestedBy?: string;
      receiver?: string;
    },
  ): Promise<AlertResult>;
}

/** CONTRACT, Heartbeats: a firing Watchdog alert from `receiver` beats its heartbeat. */
export interface WatchdogBeats {
  beatWatchdog(receiver: string): Promise<unknown>;
}

/**
 * The capabilities intake reaches, built before it in the composition root. Each is
 * optional: the standalone signal consumer (consumer.ts) runs without them.
 */
export interface IntakeCapabilities {
  /** CONTRACT, Silences: which silence mutes a firing alert, and counting what it muted. */
  silences?: Pick<Silences, 'mutedBy' | 'noteMuted'>;
  /**
   * CONTRACT, Incident lifecycle: a resolved alert resolves its unresolved incident, with
   * what resolution does to the approval and the cards (incidents/incident-moves.ts).
   */
  incidentMoves?: IncidentMoveDeps;
  /** A converged alert raised an incident's hit count (its card shows the count). */
  escalation?: Pick<Escalation, 'onConverged'>;
  /** Set once the heartbeats exist (they open incidents through intake). */
  watchdog?: WatchdogBeats;
}

export function createAlertIntake(
  services: Pick<Services, 'clock' | 'config' | 'feed' | 'followUps' | 'log' | 'metrics' | 'store'>,
  rules: AlertTypeRule[],
  capabilities: IntakeCapabilities = {},
): AlertIntake & { beatWatchdogWith(watchdog: WatchdogBeats): void } {
  const { silences, incidentMoves, escalation } = capabilities;
  let watchdog = capabilities.watchdog;
  const { store, clock, metrics } = services;
  const convergeOrCreate = createConverger(store, services.followUps, {
    repeatsFromMemory: services.config.benchBound === 'converge-write',
  });
  const relayFollowUp = createFollowUpRelay(services);
  const publishConverged = createConvergedEvents(services);
  const fingerprintAlert = createFingerprinter();

  function typeAlert(alert: FlatAlert, origin: string, now: number): TypedAlert {
    const { alertType, source } = resolveAlertType(alert, rules);
    const namespace = alert.namespace || 'default';
    const workload = alert.workload || workloadOf(alert.target_resource);
    return {
      // spec: the alert id is in Asia/Taipei time, whatever DISPLAY_TZ says.
      alertId: alertIdAt(now),
      alertName: alert.alert_name || alertType,
      alertType,
      alertTypeSource: source,
      fingerprint: fingerprintAlert(namespace, workload, alertType),
      namespace,
      workload,
      severity: incidentSeverity(alert.severity),
      source: alert.source,
      targetResource: alert.target_resource,
      message: alert.message,
      labels: alert.labels,
      annotations: alert.annotations,
      origin,
      payload: alert,
    };
  }

  return {
    async accept(alert, origin, options = {}) {
      const now = clock.now();
      const typed = typeAlert(alert, origin, now);
      if (alert.status === 'resolved') {
        // CONTRACT, Incident lifecycle: it resolves the unresolved incident of its
        // fingerprint, if any, and still creates nothing.
        const incidentId = (await unresolvedIncidentOf(store.db, typed.fingerprint))?.id ?? null;
        await recordAlert(store.db, typed, incidentId, 'resolved', now);
        if (incidentId && incidentMoves) await resolveIncident(incidentMoves, incidentId, 'alert');
        metrics.alertsProcessed.labels('resolved_recorded', origin).inc();
        return {
          status: 'resolved',
          alert_id: typed.alertId,
          fingerprint: typed.fingerprint,
          incident_id: incidentId,
          analysis_scheduled: false,
        };
      }
      if (options.receiver !== undefined && alert.alert_name === WATCHDOG && watchdog) {
        await watchdog.beatWatchdog(options.receiver);
        await recordAlert(store.db, typed, null, 'heartbeat', now);
        return {
          status: 'heartbeat',
          alert_id: typed.alertId,
          fingerprint: typed.fingerprint,
          incident_id: null,
          analysis_scheduled: false,
        };
      }
      const silenceId = silences?.mutedBy(silenceLabels(alert, typed));
      // A signal muted before is muted again when redelivered (CONTRACT, Signals: handled
      // once), even after its silence ended: it records nothing more. One handled before in
      // any other way is replayed by the converger, even under a silence that began since.
      const entryId = options.signalEntryId;
      const before = await signalOutcomeBefore(store, options);
      const mutedBefore = before === 'silenced';
      const handledBefore = before !== null && !mutedBefore;
      if (!handledBefore && (silenceId !== undefined || mutedBefore)) {
        if (!mutedBefore) {
          // CONTRACT, Silences: recorded, and it creates and changes nothing else.
          await store.db.transaction().execute(async (tx) => {
            await recordAlert(tx, typed, null, 'silenced', now);
            if (entryId === undefined) return;
            await insertSignalOutcomes(tx, [
              { entry_id: entryId, outcome: 'silenced', incident_id: null, processed_at: now },
            ]);
          });
          metrics.alertsProcessed.labels('silenced', origin).inc();
          if (silenceId !== undefined)
            silences?.noteMuted(silenceId, typed.alertId, typed.fingerprint);
        }
        const { alertId, fingerprint } = typed;
        return {
          status: 'silenced',
          alert_id: alertId,
          fingerprint,
          silence_id: silenceId ?? '',
          incident_id: null,
        };
      }
      const result = await convergeOrCreate(typed, {
        now,
        requestedBy: options.requestedBy ?? `${origin}-intake`,
        signalEntryId: options.signalEntryId,
      });
      if (result.status === 'created') {
        // CONTRACT, Operator console: enough to show the incident without reading it back.
        publishEvent(services, 'incident.created', {
          incident_id: result.incident_id,
          approval_id: result.approval_id,
          fingerprint: result.fingerprint,
          severity: typed.severity,
          namespace: typed.namespace,
          alert_name: typed.alertName,
          workload: typed.workload,
          status: 'open',
          hit_count: result.hit_count,
        });
        if (result.approval_id) {
          const request = approvalRequestOf(typed);
          publishEvent(services, 'approval.created', {
            approval_id: result.approval_id,
            incident_id: result.incident_id,
            action: request.action,
            risk_level: request.riskLevel,
          });
        }
        // Committed with the incident; a queue that refuses it now gets it from the relay.
        if (result.follow_up_job) await relayFollowUp(result.follow_up_job);
      } else if (result.status === 'converged') {
        if (result.reopened) {
          publishEvent(services, 'incident.reopened', {
            incident_id: result.incident_id,
            actor: 'alert',
          });
        }
        publishConverged({
          incident_id: result.incident_id,
          approval_id: result.approval_id,
          hit_count: result.hit_count,
        });
      }
      if (result.status === 'converged' && result.approval_id) {
        escalation?.onConverged(result.approval_id, result.hit_count);
      }
      metrics.alertsProcessed
        .labels(result.status === 'created' ? 'incident_created' : 'converged', origin)
        .inc();
      return result;
    },
    beatWatchdogWith(beats) {
      watchdog = beats;
    },
  };
}

/** How a signal entry was handled before (`null`: never, or not a signal). */
async function signalOutcomeBefore(
  store: Store,
  options: { signalEntryId?: string; signalOutcomeBefore?: string | null },
): Promise<string | null> {
  if (options.signalEntryId === undefined) return null;
  // Given by a consumer that looked its whole batch up at once.
  if (options.signalOutcomeBefore !== undefined) return options.signalOutcomeBefore;
  const [row] = await signalOutcomesOf(store.db, [options.signalEntryId]);
  return row?.outcome ?? null;
}
