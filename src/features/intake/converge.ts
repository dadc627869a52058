import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Store, Tx } from '../../ports/store.js';
import { insertApproval, riskForSeverity } from '../approvals/approval-records.js';

/** spec, What the service does (2): a record that is pending, or younger than 5 minutes. */
export const DEBOUNCE_WINDOW_MS = 5 * 60 * 1000;

export interface TypedAlert {
  alertId: string;
  alertName: string;
  alertType: string;
  /** Why this alert type: `payload`, `rule_type`, `rule:<id>`, `table:<name>` or `default`. */
  alertTypeSource: string;
  fingerprint: string;
  namespace: string;
  workload: string;
  /** P0-P3 */
  severity: string;
  source: string;
  targetResource: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `webhook`, `alertmanager` or `signal` */
  origin: string;
  payload: unknown;
}

export interface ConvergeResult {
  status: 'created' | 'converged';
  alert_id: string;
  fingerprint: string;
  incident_id: string;
  approval_id: string | null;
  hit_count: number;
  analysis_scheduled: boolean;
}

export interface ConvergeOptions {
  now: number;
  requestedBy: string;
  /** A signal stream entry handled exactly once: a re-delivery returns the first result. */
  signalEntryId?: string;
}

/**
 * spec, `POST /webhooks/alerts`: an alert matching a pending or recent record only raises
 * its hit counter; otherwise it opens an incident with a pending approval. The lock on the
 * fingerprint makes concurrent identical alerts converge on one incident.
 */
export function convergeOrCreate(
  store: Store,
  alert: TypedAlert,
  options: ConvergeOptions,
): Promise<ConvergeResult> {
  return store.withLock(`alert:${alert.fingerprint}`, async (tx) => {
    if (options.signalEntryId) {
      const earlier = await tx
        .selectFrom('signal_outcomes')
        .select(['outcome', 'incident_id'])
        .where('entry_id', '=', options.signalEntryId)
        .executeTakeFirst();
      if (earlier) return replayedResult(tx, alert, earlier.incident_id);
    }
    const existing = await tx
      .selectFrom('incidents')
      .leftJoin('approvals', 'approvals.id', 'incidents.approval_id')
      .select(['incidents.id', 'incidents.approval_id', 'incidents.hit_count'])
      .where('incidents.fingerprint', '=', alert.fingerprint)
      .where((eb) =>
        eb.or([
          eb('approvals.status', '=', 'pending'),
          eb('incidents.first_seen', '>', options.now - DEBOUNCE_WINDOW_MS),
        ]),
      )
      .orderBy('incidents.seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    const result = existing
      ? await converge(tx, alert, existing, options.now)
      : await create(tx, alert, options);
    if (options.signalEntryId) {
      await tx
        .insertInto('signal_outcomes')
        .values({
          entry_id: options.signalEntryId,
          outcome: result.status === 'created' ? 'incident_created' : 'converged',
          incident_id: result.incident_id,
          processed_at: options.now,
        })
        .execute();
    }
    return result;
  });
}

async function converge(
  tx: Tx,
  alert: TypedAlert,
  existing: { id: string; approval_id: string | null; hit_count: number },
  now: number,
): Promise<ConvergeResult> {
  const updated = await tx
    .updateTable('incidents')
    .set({ hit_count: sql`hit_count + 1`, last_seen: now })
    .where('id', '=', existing.id)
    .returning('hit_count')
    .executeTakeFirstOrThrow();
  await recordAlert(tx, alert, existing.id, 'converged', now);
  return {
    status: 'converged',
    alert_id: alert.alertId,
    fingerprint: alert.fingerprint,
    incident_id: existing.id,
    approval_id: existing.approval_id,
    hit_count: updated.hit_count,
    analysis_scheduled: false,
  };
}

async function create(
  tx: Tx,
  alert: TypedAlert,
  options: ConvergeOptions,
): Promise<ConvergeResult> {
  const incidentId = `inc-${crypto.randomUUID()}`;
  const approvalId = await insertApproval(
    tx,
    {
      incidentId,
      riskLevel: riskForSeverity(alert.severity),
      action: `${alert.alertType} on ${alert.namespace}/${alert.workload || alert.targetResource}`,
      description: alert.message || alert.alertName,
      requestedBy: options.requestedBy,
      metadata: {
        source: alert.source,
        alert_name: alert.alertName,
        alert_type: alert.alertType,
        alert_type_source: alert.alertTypeSource,
        fingerprint: alert.fingerprint,
        namespace: alert.namespace,
        workload: alert.workload,
        target_resource: alert.targetResource,
        severity: alert.severity,
      },
    },
    options.now,
  );
  await tx
    .insertInto('incidents')
    .values({
      id: incidentId,
      fingerprint: alert.fingerprint,
      namespace: alert.namespace,
      workload: alert.workload,
      alert_type: alert.alertType,
      alert_type_source: alert.alertTypeSource,
      alert_name: alert.alertName,
      severity: alert.severity,
      source: alert.source,
      target_resource: alert.targetResource,
      message: alert.message,
      labels: JSON.stringify(alert.labels),
      annotations: JSON.stringify(alert.annotations),
      status: 'open',
      hit_count: 1,
      first_seen: options.now,
      last_seen: options.now,
      approval_id: approvalId,
    })
    .execute();
  await recordAlert(tx, alert, incidentId, 'created', options.now);
  return {
    status: 'created',
    alert_id: alert.alertId,
    fingerprint: alert.fingerprint,
    incident_id: incidentId,
    approval_id: approvalId,
    hit_count: 1,
    analysis_scheduled: true,
  };
}

async function replayedResult(
  tx: Tx,
  alert: TypedAlert,
  incidentId: string | null,
): Promise<ConvergeResult> {
  const incident = await tx
    .selectFrom('incidents')
    .select(['id', 'approval_id', 'hit_count'])
    .where('id', '=', incidentId ?? '')
    .executeTakeFirstOrThrow();
  return {
    status: 'converged',
    alert_id: alert.alertId,
    fingerprint: alert.fingerprint,
    incident_id: incident.id,
    approval_id: incident.approval_id,
    hit_count: incident.hit_count,
    analysis_scheduled: false,
  };
}

export async function recordAlert(
  tx: Db | Tx,
  alert: TypedAlert,
  incidentId: string | null,
  outcome: string,
  now: number,
): Promise<void> {
  await tx
    .insertInto('alerts')
    .values({
      alert_id: alert.alertId,
      incident_id: incidentId,
      fingerprint: alert.fingerprint,
      origin: alert.origin,
      outcome,
      received_at: now,
      payload: JSON.stringify(alert.payload ?? null),
    })
    .execute();
}
