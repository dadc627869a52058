import type { Services } from '../../services.js';
import { createFollowUpRelay } from '../escalation/incident-followup.js';
import { publishEvent } from '../events/feed-events.js';
import { latestIncidentIdOf } from '../incidents/incident-records.js';
import { alertIdAt } from './alert-id.js';
import type { AlertTypeRule } from './alert-type-rules.js';
import { resolveAlertType } from './alert-types.js';
import { type ConvergeResult, createConverger, recordAlert, type TypedAlert } from './converge.js';
import { createConvergedEvents } from './converged-events.js';
import { fingerprintAlert, workloadOf } from './fingerprint.js';
import { type FlatAlert, incidentSeverity } from './normalize-alert.js';

export interface ResolvedResult {
  status: 'resolved';
  alert_id: string;
  fingerprint: string;
  incident_id: string | null;
  analysis_scheduled: false;
}

export type AlertResult = ConvergeResult | ResolvedResult;

export interface AlertIntake {
  accept(
    alert: FlatAlert,
    origin: string,
    options?: { signalEntryId?: string; requestedBy?: string },
  ): Promise<AlertResult>;
}

export interface IntakeHooks {
  /** A converged alert raised an incident's hit count (its card shows the count). */
  onConverged?(approvalId: string, hitCount: number): void;
}

export function createAlertIntake(
  services: Services,
  rules: AlertTypeRule[],
  hooks: IntakeHooks = {},
): AlertIntake {
  const { store, clock, metrics } = services;
  const convergeOrCreate = createConverger(store);
  const relayFollowUp = createFollowUpRelay(services);
  const publishConverged = createConvergedEvents(services);

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
        const latestId = (await latestIncidentIdOf(store.db, typed.fingerprint)) ?? null;
        // CONTRACT: resolved alerts "are recorded and create nothing".
        await recordAlert(store.db, typed, latestId, 'resolved', now);
        metrics.alertsProcessed.labels('resolved_recorded', origin).inc();
        return {
          status: 'resolved',
          alert_id: typed.alertId,
          fingerprint: typed.fingerprint,
          incident_id: latestId,
          analysis_scheduled: false,
        };
      }
      const result = await convergeOrCreate(typed, {
        now,
        requestedBy: options.requestedBy ?? `${origin}-intake`,
        signalEntryId: options.signalEntryId,
      });
      if (result.status === 'created') {
        publishEvent(services, 'incident.created', {
          incident_id: result.incident_id,
          approval_id: result.approval_id,
          fingerprint: result.fingerprint,
          severity: typed.severity,
          namespace: typed.namespace,
          hit_count: result.hit_count,
        });
        if (result.approval_id) {
          publishEvent(services, 'approval.created', {
            approval_id: result.approval_id,
            incident_id: result.incident_id,
          });
        }
        // Committed with the incident; a queue that refuses it now gets it from the relay.
        await relayFollowUp(result.incident_id);
      } else if (result.status === 'converged') {
        publishConverged({
          incident_id: result.incident_id,
          approval_id: result.approval_id,
          hit_count: result.hit_count,
        });
      }
      if (result.status === 'converged' && result.approval_id) {
        hooks.onConverged?.(result.approval_id, result.hit_count);
      }
      metrics.alertsProcessed
        .labels(result.status === 'created' ? 'incident_created' : 'converged', origin)
        .inc();
      return result;
    },
  };
}
