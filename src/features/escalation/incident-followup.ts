import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { groupCommit } from '../../support/group-commit.js';
import { typedJob } from '../../support/typed-job.js';
import { riskForSeverity } from '../approvals/approval-domain.js';
import type { CardSender } from '../cards/card-types.js';
import { findIncident } from '../incidents/incident-records.js';
import { addFollowUpJobs, completeFollowUpJob, relayFollowUpJobs } from '../outbox/outbox-relay.js';
import type { RepairDeps } from '../repair/auto-repair.js';
import { createRepairEvaluator } from '../repair/repair-jobs.js';
import { pushCardOnce } from './card-once.js';

/**
 * What follows a newly opened incident, as a durable job. The name predates this module
 * (it never analysed anything) and is kept so that jobs queued by an earlier release run.
 */
export const INCIDENT_FOLLOW_UP_JOB = 'incident.analyze';
const FOLLOW_UP_CONCURRENCY = 16;

const followUpJobId = (incidentId: string) => `analyze-${incidentId}`;
const FollowUpPayload = Type.Object({ incident_id: Type.String({ minLength: 1 }) });

/**
 * Commits the incident's follow-up with the incident (the caller's transaction): a crash or a
 * queue outage after the commit delays the follow-up, it cannot lose it (outbox-relay.ts).
 */
export function addIncidentFollowUps(
  tx: Tx,
  incidentIds: readonly string[],
  now: number,
): Promise<void> {
  return addFollowUpJobs(
    tx,
    incidentIds.map((incidentId) => ({
      name: INCIDENT_FOLLOW_UP_JOB,
      payload: { incident_id: incidentId },
      jobId: followUpJobId(incidentId),
    })),
    now,
  );
}

/**
 * After the incidents' commit: hands their follow-up to the queue now rather than within
 * 1 s. Incidents opened in the same tick (one converge batch) are relayed together.
 */
export function createFollowUpRelay(services: Services): (incidentId: string) => Promise<void> {
  const relay = groupCommit<string>(async (incidentIds) => {
    await relayFollowUpJobs(services, [...new Set(incidentIds)].map(followUpJobId));
  });
  return (incidentId) => relay.add(incidentId);
}

/**
 * What happens after an incident is created, in order:
 * 1. its approval card goes to the chat (chat/card-sender.ts);
 * 2. auto-repair is evaluated for its approval (repair/repair-jobs.ts → auto-repair.ts):
 *    in this job for the dry run, as a job of its own for an executor that changes state.
 * Model analysis is not started here: the spec runs it only when asked (`POST /agents/analyze`).
 */
export async function followNewIncident(
  services: Services,
  cards: CardSender,
  evaluateRepair: (approvalId: string) => Promise<void>,
  incidentId: string,
): Promise<void> {
  const { store, log } = services;
  const incident = await findIncident(store.db, incidentId);
  if (!incident?.approval_id) {
    log.warn({ incidentId }, 'new incident without an approval: nothing to follow up');
    await completeFollowUpJob(services, followUpJobId(incidentId));
    return;
  }
  // CONTRACT, Incident lifecycle: resolved before its follow-up ran (a queue outage, a quick
  // resolved alert), it gets no card and no repair: its approval expired with it.
  if (incident.status === 'resolved') {
    await completeFollowUpJob(services, followUpJobId(incidentId));
    return;
  }
  const approvalId = incident.approval_id;
  try {
    await pushCardOnce(services, cards, {
      approval_id: approvalId,
      risk_level: riskForSeverity(incident.severity),
      resource_name: incident.target_resource || incident.workload,
      root_cause: incident.message || incident.alert_name,
      suggested_action: `Review ${incident.alert_type} on ${incident.namespace}/${incident.workload}`,
      estimated_downtime: 'unknown',
      namespace: incident.namespace,
      hit_count: incident.hit_count,
      incident_id: incident.id,
    });
  } catch (error) {
    // The card is a notification; the approval stands and repair is still evaluated.
    log.error({ err: error, incidentId }, 'approval card not sent');
  }
  // Evaluated here, or handed on as a durable job of its own (repair-jobs.ts).
  await evaluateRepair(approvalId);
  await completeFollowUpJob(services, followUpJobId(incidentId));
}

export function registerIncidentWorkers(
  services: Services,
  cards: CardSender,
  repair: RepairDeps,
): void {
  const evaluateRepair = createRepairEvaluator(services, repair);
  services.jobs.process(
    INCIDENT_FOLLOW_UP_JOB,
    typedJob(INCIDENT_FOLLOW_UP_JOB, FollowUpPayload, services.log, (payload) =>
      followNewIncident(services, cards, evaluateRepair, payload.incident_id),
    ),
    FOLLOW_UP_CONCURRENCY,
  );
}
