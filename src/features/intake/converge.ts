import crypto from 'node:crypto';
import type { Db, Store, Tx } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
import { insertApproval, riskForSeverity } from '../approvals/approval-records.js';
import { insertAlerts } from './alert-records.js';
import { addIncidentFollowUp } from './incident-followup.js';
import {
  addIncidentHits,
  type IncidentHead,
  incidentHeadOf,
  insertIncident,
  openIncidentOf,
} from './incident-records.js';
import { insertSignalOutcomes, signalOutcomesOf } from './signal-outcome-records.js';

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

interface Arrival {
  alert: TypedAlert;
  options: ConvergeOptions;
}

export type ConvergeOrCreate = (
  alert: TypedAlert,
  options: ConvergeOptions,
) => Promise<ConvergeResult>;

/**
 * spec, `POST /webhooks/alerts`: an alert matching a pending or recent record only raises
 * its hit counter; otherwise it opens an incident with a pending approval.
 *
 * The lock on the fingerprint makes concurrent identical alerts, from any process, converge
 * on one incident. Within a process, alerts that arrive while a transaction runs are handled
 * together in the next one (a group commit): an alert storm costs one commit per batch, not
 * one per alert, each alert still gets its own hit count, and an alert that cannot be
 * written fails alone.
 */
export function createConverger(store: Store): ConvergeOrCreate {
  const commit = groupCommit<Arrival, ConvergeResult>(async (arrivals) => {
    const byFingerprint = new Map<string, Arrival[]>();
    for (const arrival of arrivals) {
      const group = byFingerprint.get(arrival.alert.fingerprint);
      if (group) group.push(arrival);
      else byFingerprint.set(arrival.alert.fingerprint, [arrival]);
    }
    const fingerprints = [...byFingerprint.keys()].sort();
    const outcomes = await store.withLock(
      fingerprints.map((fingerprint) => `alert:${fingerprint}`),
      async (tx) => {
        const done = new Map<Arrival, ConvergeResult>();
        for (const fingerprint of fingerprints) {
          const group = byFingerprint.get(fingerprint)!;
          const results = await convergeBatch(tx, group);
          group.forEach((arrival, index) => {
            done.set(arrival, results[index]!);
          });
        }
        return done;
      },
    );
    return arrivals.map((arrival) => outcomes.get(arrival)!);
  });
  return (alert, options) => commit.add({ alert, options });
}

async function convergeBatch(tx: Tx, batch: Arrival[]): Promise<ConvergeResult[]> {
  const replays = await earlierOutcomes(tx, batch);
  const fresh = batch.filter((_arrival, index) => !replays.has(index));
  const results = new Array<ConvergeResult>(batch.length);
  for (const [index, incidentId] of replays) {
    results[index] = await replayedResult(tx, batch[index]!.alert, incidentId);
  }
  if (fresh.length === 0) return results;

  const now = Math.max(...fresh.map((arrival) => arrival.options.now));
  const existing = await openIncidentOf(tx, fresh[0]!.alert.fingerprint, now - DEBOUNCE_WINDOW_MS);
  let head: IncidentHead;
  let joining = fresh;
  const outcomes: ConvergeResult[] = [];
  if (existing) {
    head = existing;
  } else {
    const first = fresh[0]!;
    head = await createIncident(tx, first.alert, first.options);
    outcomes.push(resultOf(first.alert, head, 'created', 1));
    joining = fresh.slice(1);
  }
  if (joining.length > 0) {
    const hitCount = await addIncidentHits(tx, head.id, joining.length, now);
    const base = hitCount - joining.length;
    joining.forEach((arrival, index) => {
      outcomes.push(resultOf(arrival.alert, head, 'converged', base + index + 1));
    });
  }
  await insertAlerts(
    tx,
    fresh.map((arrival, index) => alertRow(arrival, head.id, outcomes[index]!.status)),
  );
  const fromSignals = fresh.flatMap((arrival, index) =>
    arrival.options.signalEntryId
      ? [
          {
            entry_id: arrival.options.signalEntryId,
            outcome: outcomes[index]!.status === 'created' ? 'incident_created' : 'converged',
            incident_id: head.id,
            processed_at: arrival.options.now,
          },
        ]
      : [],
  );
  if (fromSignals.length > 0) await insertSignalOutcomes(tx, fromSignals);
  let next = 0;
  batch.forEach((_arrival, index) => {
    if (!replays.has(index)) results[index] = outcomes[next++]!;
  });
  return results;
}

/** Signal entries already handled (a re-delivery), or twice in this batch: index → incident. */
async function earlierOutcomes(tx: Tx, batch: Arrival[]): Promise<Map<number, string | null>> {
  const replays = new Map<number, string | null>();
  const ids = batch.map((arrival) => arrival.options.signalEntryId).filter(Boolean) as string[];
  if (ids.length === 0) return replays;
  const rows = await signalOutcomesOf(tx, ids);
  const handled = new Map(rows.map((row) => [row.entry_id, row.incident_id]));
  const seen = new Set<string>();
  batch.forEach((arrival, index) => {
    const id = arrival.options.signalEntryId;
    if (!id) return;
    if (handled.has(id) || seen.has(id)) replays.set(index, handled.get(id) ?? null);
    seen.add(id);
  });
  return replays;
}

function resultOf(
  alert: TypedAlert,
  head: IncidentHead,
  status: 'created' | 'converged',
  hitCount: number,
): ConvergeResult {
  return {
    status,
    alert_id: alert.alertId,
    fingerprint: alert.fingerprint,
    incident_id: head.id,
    approval_id: head.approval_id,
    hit_count: hitCount,
    analysis_scheduled: status === 'created',
  };
}

async function createIncident(
  tx: Tx,
  alert: TypedAlert,
  options: ConvergeOptions,
): Promise<IncidentHead> {
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
  await insertIncident(tx, {
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
  });
  await addIncidentFollowUp(tx, incidentId, options.now);
  return { id: incidentId, approval_id: approvalId, hit_count: 1 };
}

async function replayedResult(
  tx: Tx,
  alert: TypedAlert,
  incidentId: string | null,
): Promise<ConvergeResult> {
  const incident = await incidentHeadOf(tx, incidentId ?? '');
  return resultOf(alert, incident, 'converged', incident.hit_count);
}

function alertRow(arrival: Arrival, incidentId: string, outcome: string) {
  const { alert, options } = arrival;
  return {
    alert_id: alert.alertId,
    incident_id: incidentId,
    fingerprint: alert.fingerprint,
    origin: alert.origin,
    outcome,
    received_at: options.now,
    payload: JSON.stringify(alert.payload ?? null),
  };
}

export async function recordAlert(
  tx: Db | Tx,
  alert: TypedAlert,
  incidentId: string | null,
  outcome: string,
  now: number,
): Promise<void> {
  await insertAlerts(tx, [
    {
      alert_id: alert.alertId,
      incident_id: incidentId,
      fingerprint: alert.fingerprint,
      origin: alert.origin,
      outcome,
      received_at: now,
      payload: JSON.stringify(alert.payload ?? null),
    },
  ]);
}
