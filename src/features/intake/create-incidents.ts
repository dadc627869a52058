import type { Tx } from '../../ports/store.js';
import { forEachChunk } from '../../support/in-chunks.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import { riskForSeverity } from '../approvals/approval-domain.js';
import { insertApprovals } from '../approvals/approval-records.js';
import { addIncidentFollowUps, FOLLOW_UP_BATCH } from '../escalation/incident-followup.js';
import { type IncidentHead, insertIncidents } from '../incidents/incident-records.js';
import { addTimelineEntries } from '../incidents/incident-timeline-records.js';
import type { FollowUpWriter } from '../outbox/follow-up-writer.js';
import type { Arrival, TypedAlert } from './converge-types.js';

/** What an incident's approval asks to do, and how risky that is (its feed event says it too). */
export function approvalRequestOf(alert: TypedAlert) {
  return { riskLevel: riskForSeverity(alert.severity), action: approvalActionOf(alert) };
}

function approvalActionOf(alert: TypedAlert): string {
  return `${alert.alertType} on ${alert.namespace}/${alert.workload || alert.targetResource}`;
}

/** An opened incident, and the follow-up job it shares with those opened beside it. */
export type CreatedIncident = IncidentHead & { followUpJobId: string };

/** Opens one incident, with its pending approval and follow-up, per arrival. */
export async function createIncidents(
  tx: Tx,
  firsts: readonly Arrival[],
  now: number,
  followUps: FollowUpWriter,
): Promise<CreatedIncident[]> {
  if (firsts.length === 0) return [];
  // Literals, not `{ ...arrival, incidentId }`: V8 (Node 20) builds a spread given new keys
  // on a slow path (about 1 µs each here).
  const opening = firsts.map(({ alert, options }) => ({
    alert,
    options,
    incidentId: `inc-${timeOrderedId()}`,
  }));
  const approvalIds: string[] = [];
  await forEachChunk(
    opening.map(({ alert, options, incidentId }) => ({
      incidentId,
      riskLevel: riskForSeverity(alert.severity),
      action: approvalActionOf(alert),
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
  // insertApprovals answers one id per row, in order.
  const approvalIdOf = (index: number) => approvalIds[index] ?? null;
  await forEachChunk(
    opening.map(({ alert, options, incidentId }, index) => ({
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
      approval_id: approvalIdOf(index),
    })),
    (chunk) => insertIncidents(tx, chunk),
  );
  // One follow-up job per FOLLOW_UP_BATCH incidents opened together, not one each: a
  // storm's incidents are followed up in batches (escalation/incident-followup.ts).
  const followUpJobIds: string[] = [];
  await forEachChunk(
    opening.map(({ incidentId }) => incidentId),
    async (chunk) => {
      const jobId = await addIncidentFollowUps(tx, chunk, now, followUps);
      followUpJobIds.push(...chunk.map(() => jobId));
    },
    FOLLOW_UP_BATCH,
  );
  await forEachChunk(
    opening.map(({ incidentId, options }) => ({
      incidentId,
      at: options.now,
      event: 'opened' as const,
      actor: 'alert',
    })),
    (chunk) => addTimelineEntries(tx, chunk),
  );
  return opening.map(({ incidentId }, index) => ({
    id: incidentId,
    approval_id: approvalIdOf(index),
    hit_count: 1,
    status: 'open',
    followUpJobId: followUpJobIds[index]!,
  }));
}
