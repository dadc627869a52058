import crypto from 'node:crypto';
import type { Db, Store, Tx } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
import { forEachChunk } from '../../support/in-chunks.js';
import { riskForSeverity } from '../approvals/approval-domain.js';
import { insertApprovals } from '../approvals/approval-records.js';
import { addIncidentFollowUps } from '../escalation/incident-followup.js';
import {
  addIncidentHits,
  type IncidentHead,
  incidentHeadOf,
  insertIncidents,
  openIncidentsOf,
} from '../incidents/incident-records.js';
import { insertAlerts } from './alert-records.js';
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
    const fingerprints = [...new Set(arrivals.map((arrival) => arrival.alert.fingerprint))].sort();
    return store.withLock(
      fingerprints.map((fingerprint) => `alert:${fingerprint}`),
      (tx) => convergeAll(tx, arrivals),
    );
  });
  return (alert, options) => commit.add({ alert, options });
}

/**
 * One batch, whatever its fingerprints: a storm of distinct alerts costs one lookup of the
 * open incidents and one multi-row insert per table, not a round of statements per alert.
 * Results are in the order of `arrivals`.
 */
async function convergeAll(tx: Tx, arrivals: Arrival[]): Promise<ConvergeResult[]> {
  const results = new Array<ConvergeResult>(arrivals.length);
  const replays = await earlierOutcomes(tx, arrivals);
  for (const [index, incidentId] of replays) {
    results[index] = await replayedResult(tx, arrivals[index]!.alert, incidentId);
  }
  const byFingerprint = new Map<string, number[]>();
  arrivals.forEach((arrival, index) => {
    if (replays.has(index)) return;
    const group = byFingerprint.get(arrival.alert.fingerprint);
    if (group) group.push(index);
    else byFingerprint.set(arrival.alert.fingerprint, [index]);
  });
  if (byFingerprint.size === 0) return results;

  const fresh = [...byFingerprint.values()].flat();
  const now = fresh.reduce((latest, index) => Math.max(latest, arrivals[index]!.options.now), 0);
  const fingerprints = [...byFingerprint.keys()];
  const open = new Map<string, IncidentHead>();
  await forEachChunk(fingerprints, async (chunk) => {
    for (const [fingerprint, head] of await openIncidentsOf(tx, chunk, now - DEBOUNCE_WINDOW_MS))
      open.set(fingerprint, head);
  });

  const opening = fingerprints
    .filter((fingerprint) => !open.has(fingerprint))
    .map((fingerprint) => arrivals[byFingerprint.get(fingerprint)![0]!]!);
  const heads = await createIncidents(tx, opening, now);
  opening.forEach((first, position) => {
    const index = byFingerprint.get(first.alert.fingerprint)![0]!;
    results[index] = resultOf(first.alert, heads[position]!, 'created', 1);
    open.set(first.alert.fingerprint, heads[position]!);
  });

  for (const [fingerprint, indexes] of byFingerprint) {
    const joining = indexes.filter((index) => !results[index]);
    if (joining.length === 0) continue;
    const head = open.get(fingerprint)!;
    const hitCount = await addIncidentHits(tx, head.id, joining.length, now);
    const base = hitCount - joining.length;
    joining.forEach((index, position) => {
      results[index] = resultOf(arrivals[index]!.alert, head, 'converged', base + position + 1);
    });
  }

  await forEachChunk(
    fresh.map((index) => alertRow(arrivals[index]!, results[index]!)),
    (chunk) => insertAlerts(tx, chunk),
  );
  const fromSignals = fresh.flatMap((index) => {
    const { options } = arrivals[index]!;
    const result = results[index]!;
    return options.signalEntryId
      ? [
          {
            entry_id: options.signalEntryId,
            outcome: result.status === 'created' ? 'incident_created' : 'converged',
            incident_id: result.incident_id,
            processed_at: options.now,
          },
        ]
      : [];
  });
  await forEachChunk(fromSignals, (chunk) => insertSignalOutcomes(tx, chunk));
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

/** Opens one incident, with its pending approval and follow-up, per arrival. */
async function createIncidents(
  tx: Tx,
  firsts: readonly Arrival[],
  now: number,
): Promise<IncidentHead[]> {
  if (firsts.length === 0) return [];
  const incidentIds = firsts.map(() => `inc-${crypto.randomUUID()}`);
  const approvalIds: string[] = [];
  await forEachChunk(
    firsts.map(({ alert, options }, index) => ({
      incidentId: incidentIds[index]!,
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
    })),
    async (chunk) => approvalIds.push(...(await insertApprovals(tx, chunk, now))),
  );
  await forEachChunk(
    firsts.map(({ alert, options }, index) => ({
      id: incidentIds[index]!,
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
      approval_id: approvalIds[index]!,
    })),
    (chunk) => insertIncidents(tx, chunk),
  );
  await forEachChunk(incidentIds, (chunk) => addIncidentFollowUps(tx, chunk, now));
  return incidentIds.map((id, index) => ({ id, approval_id: approvalIds[index]!, hit_count: 1 }));
}

async function replayedResult(
  tx: Tx,
  alert: TypedAlert,
  incidentId: string | null,
): Promise<ConvergeResult> {
  const incident = await incidentHeadOf(tx, incidentId ?? '');
  return resultOf(alert, incident, 'converged', incident.hit_count);
}

function alertRow(arrival: Arrival, result: ConvergeResult) {
  const { alert, options } = arrival;
  return {
    alert_id: alert.alertId,
    incident_id: result.incident_id,
    fingerprint: alert.fingerprint,
    origin: alert.origin,
    outcome: result.status,
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
