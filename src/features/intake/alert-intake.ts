import type { Services } from '../../services.js';
import { alertIdAt } from './alert-id.js';
import type { AlertTypeRule } from './alert-type-rules.js';
import { resolveAlertType } from './alert-types.js';
import { type ConvergeResult, createConverger, recordAlert, type TypedAlert } from './converge.js';
import { fingerprintAlert, workloadOf } from './fingerprint.js';
import { type FlatAlert, incidentSeverity } from './normalize-alert.js';

/** The background job that follows a newly opened incident: its card, repair, analysis. */
export const ANALYZE_INCIDENT_JOB = 'incident.analyze';

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
  const { store, clock, metrics, jobs } = services;
  const convergeOrCreate = createConverger(store);

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
        const latest = await store.db
          .selectFrom('incidents')
          .select('id')
          .where('fingerprint', '=', typed.fingerprint)
          .orderBy('seq', 'desc')
          .limit(1)
          .executeTakeFirst();
        // CONTRACT: resolved alerts "are recorded and create nothing".
        await recordAlert(store.db, typed, latest?.id ?? null, 'resolved', now);
        metrics.alertsProcessed.labels('resolved_recorded', origin).inc();
        return {
          status: 'resolved',
          alert_id: typed.alertId,
          fingerprint: typed.fingerprint,
          incident_id: latest?.id ?? null,
          analysis_scheduled: false,
        };
      }
      const result = await convergeOrCreate(typed, {
        now,
        requestedBy: options.requestedBy ?? `${origin}-intake`,
        signalEntryId: options.signalEntryId,
      });
      if (result.status === 'created') {
        await jobs.enqueue(
          ANALYZE_INCIDENT_JOB,
          { incident_id: result.incident_id },
          { jobId: `analyze-${result.incident_id}` },
        );
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
