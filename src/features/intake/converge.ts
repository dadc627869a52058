import type { Db, Store, Tx } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
import { forEachChunk } from '../../support/in-chunks.js';
import { pendingApprovalRow } from '../approvals/approval-records.js';
import { insertAlerts } from '../incidents/alert-records.js';
import {
  addIncidentHits,
  type IncidentHead,
  incidentHeadOf,
  openIncidentsOf,
  reopenIncident,
} from '../incidents/incident-records.js';
import { addTimelineEntries } from '../incidents/incident-timeline-records.js';
import { DEBOUNCE_WINDOW_MS } from '../incidents/incident-view.js';
import type { FollowUpWriter } from '../outbox/follow-up-writer.js';
import { answeringRepeatsFromMemory } from './converge-bound.js';
import type { Arrival, ConvergeOptions, ConvergeResult, TypedAlert } from './converge-types.js';
import { createIncidents } from './create-incidents.js';
import { insertSignalOutcomes, signalOutcomesOf } from './signal-outcome-records.js';

export type { ConvergeOptions, ConvergeResult, TypedAlert } from './converge-types.js';

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
export function createConverger(
  store: Store,
  followUps: FollowUpWriter,
  { repeatsFromMemory = false } = {},
): ConvergeOrCreate {
  const write = (arrivals: Arrival[]) => {
    const fingerprints = [...new Set(arrivals.map((arrival) => arrival.alert.fingerprint))].sort();
    return store.withLock(
      fingerprints.map((fingerprint) => `alert:${fingerprint}`),
      (tx) => convergeAll(tx, arrivals, followUps),
    );
  };
  const commit = groupCommit<Arrival, ConvergeResult>(
    repeatsFromMemory ? answeringRepeatsFromMemory(write) : write,
  );
  return (alert, options) => commit.add({ alert, options });
}

/** One arrival of a batch, where its result goes, and the result once it is known. */
interface Slot {
  index: number;
  arrival: Arrival;
  result?: ConvergeResult;
}

/**
 * One batch, whatever its fingerprints: a storm of distinct alerts costs one lookup of the
 * open incidents and one multi-row insert per table, not a round of statements per alert.
 * Results are in the order of `arrivals`.
 */
async function convergeAll(
  tx: Tx,
  arrivals: Arrival[],
  followUps: FollowUpWriter,
): Promise<ConvergeResult[]> {
  const slots: Slot[] = arrivals.map((arrival, index) => ({ index, arrival }));
  const replays = await earlierOutcomes(tx, arrivals);
  const byFingerprint = new Map<string, [Slot, ...Slot[]]>();
  for (const slot of slots) {
    if (replays.has(slot.index)) {
      slot.result = await replayedResult(tx, slot.arrival.alert, replays.get(slot.index) ?? null);
      continue;
    }
    const group = byFingerprint.get(slot.arrival.alert.fingerprint);
    if (group) group.push(slot);
    else byFingerprint.set(slot.arrival.alert.fingerprint, [slot]);
  }
  if (byFingerprint.size > 0) await convergeFresh(tx, byFingerprint, followUps);
  return slots.map((slot) => {
    if (!slot.result) throw new Error(`converge: no result for arrival ${slot.index}`);
    return slot.result;
  });
}

/** The arrivals not replayed, grouped by fingerprint: each group joins or opens one incident. */
async function convergeFresh(
  tx: Tx,
  byFingerprint: Map<string, [Slot, ...Slot[]]>,
  followUps: FollowUpWriter,
) {
  const fresh = [...byFingerprint.values()].flat();
  const now = fresh.reduce((latest, slot) => Math.max(latest, slot.arrival.options.now), 0);
  // A group comes back only when an incident it was to join was resolved meanwhile; it looks
  // again, and reopens that incident or opens a new one. Each round needs a resolve of that
  // fingerprint's incident to commit in between, so the rounds end.
  let unsettled = byFingerprint;
  while (unsettled.size > 0) unsettled = await joinOrOpen(tx, unsettled, now, followUps);

  const settled = fresh.flatMap((slot) => (slot.result ? [{ ...slot, result: slot.result }] : []));
  await forEachChunk(
    settled.map((slot) => alertRow(slot.arrival, slot.result)),
    (chunk) => insertAlerts(tx, chunk),
  );
  const fromSignals = settled.flatMap(({ arrival: { options }, result }) =>
    options.signalEntryId
      ? [
          {
            entry_id: options.signalEntryId,
            outcome: result.status === 'created' ? 'incident_created' : 'converged',
            incident_id: result.incident_id,
            processed_at: options.now,
          },
        ]
      : [],
  );
  await forEachChunk(fromSignals, (chunk) => insertSignalOutcomes(tx, chunk));
}

/**
 * One round of convergeFresh: looks up each group's incident, opens those missing, and
 * joins (reopening a resolved one) the rest. Answers the groups whose incident turned out
 * resolved when its row was locked: they have no result yet.
 */
async function joinOrOpen(
  tx: Tx,
  byFingerprint: Map<string, [Slot, ...Slot[]]>,
  now: number,
  followUps: FollowUpWriter,
): Promise<Map<string, [Slot, ...Slot[]]>> {
  const fingerprints = [...byFingerprint.keys()];
  const open = new Map<string, IncidentHead>();
  await forEachChunk(fingerprints, async (chunk) => {
    for (const [fingerprint, head] of await openIncidentsOf(
      tx,
      chunk,
      now - DEBOUNCE_WINDOW_MS,
      pendingApprovalRow,
    ))
      open.set(fingerprint, head);
  });

  const opening = [...byFingerprint]
    .filter(([fingerprint]) => !open.has(fingerprint))
    .map(([, [first]]) => first);
  const heads = await createIncidents(
    tx,
    opening.map((slot) => slot.arrival),
    now,
    followUps,
  );
  opening.forEach((first, position) => {
    const head = heads[position];
    if (!head) throw new Error('converge: an incident was not created');
    first.result = resultOf(first.arrival.alert, head, 'created', 1);
    first.result.follow_up_job = head.followUpJobId;
    open.set(first.arrival.alert.fingerprint, head);
  });

  const joins: Array<{
    fingerprint: string;
    head: IncidentHead;
    joining: [Slot, ...Slot[]];
    reopened: boolean;
  }> = [];
  for (const [fingerprint, group] of byFingerprint) {
    const [first, ...rest] = group.filter((slot) => !slot.result);
    const head = open.get(fingerprint);
    if (!first || !head) continue;
    const joining: [Slot, ...Slot[]] = [first, ...rest];
    // CONTRACT, Incident lifecycle: a firing alert converging into a resolved incident
    // reopens it. The row is not locked yet: the status read may be stale, which
    // addIncidentHits finds (below).
    const reopened = head.status === 'resolved' && (await reopenIncident(tx, head.id));
    if (reopened) {
      await addTimelineEntries(tx, [
        { incidentId: head.id, at: now, event: 'reopened', actor: 'alert' },
      ]);
      head.status = 'open';
    }
    joins.push({ fingerprint, head, joining, reopened });
  }
  // One incident per fingerprint, so each id is raised once, by all its alerts.
  const counts = await addIncidentHits(
    tx,
    joins.map(({ head, joining }) => ({ id: head.id, by: joining.length })),
    now,
  );
  const resolvedMeanwhile = new Map<string, [Slot, ...Slot[]]>();
  for (const { fingerprint, head, joining, reopened } of joins) {
    const hitCount = counts.get(head.id);
    if (hitCount === undefined) {
      // CONTRACT, Under races, crashes and abuse, Resolving: resolved between the lookup and
      // the row's lock; never converge silently into it.
      resolvedMeanwhile.set(fingerprint, joining);
      continue;
    }
    const base = hitCount - joining.length;
    joining.forEach((slot, position) => {
      slot.result = resultOf(slot.arrival.alert, head, 'converged', base + position + 1);
    });
    if (reopened && joining[0].result) joining[0].result.reopened = true;
  }
  return resolvedMeanwhile;
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
