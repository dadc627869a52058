import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { groupCommit } from '../../support/group-commit.js';
import { riskForSeverity } from '../approvals/approval-domain.js';
import type { CardSender } from '../cards/card-types.js';
import { lookUpIncident } from '../incidents/incident-records.js';
import type { FollowUpWriter } from '../outbox/follow-up-writer.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import type { RepairDeps } from '../repair/repair-deps.js';
import {
  createRepairEvaluator,
  type EvaluateRepair,
  type RepairJobsServices,
} from '../repair/repair-jobs.js';
import { pushCardOnce } from './card-once.js';

/** The services this file's functions use: the repair evaluation's, which its job runs. */
type IncidentFollowupServices = RepairJobsServices;

/**
 * What follows newly opened incidents, as a durable job: the incidents one converge
 * transaction opened, at most FOLLOW_UP_BATCH of them, `{incident_ids}`.
 */
/** Incidents per follow-up job: a converge transaction's incidents are split by this. */
export const FOLLOW_UP_BATCH = 500;
export const INCIDENT_FOLLOW_UP_JOB = jobKind(
  'incident.follow-up',
  Type.Object({
    incident_ids: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      maxItems: FOLLOW_UP_BATCH,
    }),
  }),
  // The job of incidents opened together is named for the first of them.
  (payload) => `follow-up-${payload.incident_ids[0]}`,
);
/**
 * The job of an earlier release, one incident each (`{incident_id}`, id `analyze-<incident>`),
 * still run for the jobs it queued. A name of its own: a replica of that release, during a
 * rolling upgrade, never claims a batch it would drop as malformed.
 */
export const SINGLE_FOLLOW_UP_JOB = jobKind(
  'incident.analyze',
  Type.Object({ incident_id: Type.String({ minLength: 1 }) }),
  (payload) => `analyze-${payload.incident_id}`,
);
/** Batch jobs run side by side per process; each follows FOLLOW_UP_PARALLEL incidents at once. */
const FOLLOW_UP_CONCURRENCY = 4;
const SINGLE_FOLLOW_UP_CONCURRENCY = 16;
const FOLLOW_UP_PARALLEL = 32;

/**
 * Commits the follow-up of incidents opened together with them (the caller's transaction),
 * as one job: a crash or a queue outage after the commit delays it, it cannot lose it
 * (follow-up-writer.ts). One job rather than one per incident is what keeps a storm's follow-up
 * cheap: one queue entry, one claim and one completion per batch. Returns the job's id.
 */
export async function addIncidentFollowUps(
  tx: Tx,
  incidentIds: readonly string[],
  now: number,
  followUps: FollowUpWriter,
): Promise<string> {
  const job = jobOf(INCIDENT_FOLLOW_UP_JOB, { incident_ids: [...incidentIds] });
  await followUps.add(tx, [job], now);
  return job.jobId;
}

/**
 * After the incidents' commit: hands their follow-up job to the queue now rather than within
 * the relay's next pass. Jobs committed in the same tick are relayed together.
 */
export function createFollowUpRelay(
  services: Pick<Services, 'followUps'>,
): (jobId: string) => Promise<void> {
  const followUps = services.followUps;
  const relay = groupCommit<string>((jobIds) =>
    followUps.relay(jobIds.map((jobId) => ({ jobId, name: INCIDENT_FOLLOW_UP_JOB.name }))),
  );
  return (jobId) => relay.add(jobId);
}

/**
 * What happens after an incident is created, in order:
 * 1. its approval card goes to the chat (chat/card-sender.ts);
 * 2. auto-repair is evaluated for its approval (repair/repair-jobs.ts → auto-repair.ts):
 *    in this job for the dry run, as a job of its own for an executor that changes state.
 * Model analysis is not started here: the spec runs it only when asked (`POST /agents/analyze`).
 */
export async function followNewIncident(
  services: IncidentFollowupServices,
  cards: CardSender,
  evaluateRepair: EvaluateRepair,
  incidentId: string,
): Promise<void> {
  const { store, log } = services;
  const incident = await lookUpIncident(store.db, incidentId);
  if (!incident?.approval_id) {
    log.warn({ incidentId }, 'new incident without an approval: nothing to follow up');
    return;
  }
  // CONTRACT, Incident lifecycle: resolved before its follow-up ran (a queue outage, a quick
  // resolved alert), it gets no card and no repair: its approval expired with it.
  if (incident.status === 'resolved') return;
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
  await evaluateRepair(approvalId, incident);
}

/**
 * One job's incidents, FOLLOW_UP_PARALLEL at a time, so that their reads and their repair
 * claims share statements. Every incident is followed even when one fails; then the job
 * fails and runs again, which repeats nothing already done (a card is pushed once, a repair
 * evaluated once). Once all are followed, the job's outbox row is completed.
 */
export async function followNewIncidents(
  services: IncidentFollowupServices,
  followOne: (incidentId: string) => Promise<void>,
  incidentIds: readonly string[],
  jobId: string,
): Promise<void> {
  const failures: unknown[] = [];
  for (let start = 0; start < incidentIds.length; start += FOLLOW_UP_PARALLEL) {
    const wave = incidentIds.slice(start, start + FOLLOW_UP_PARALLEL);
    for (const outcome of await Promise.allSettled(wave.map(followOne))) {
      if (outcome.status === 'rejected') failures.push(outcome.reason);
    }
  }
  if (failures.length > 0) {
    const first = failures[0] instanceof Error ? failures[0].message : String(failures[0]);
    throw new Error(
      `follow-up of ${failures.length} of ${incidentIds.length} incidents failed: ${first}`,
      { cause: failures[0] },
    );
  }
  await services.outbox.complete(jobId);
}

export function registerIncidentWorkers(
  services: IncidentFollowupServices,
  cards: CardSender,
  repair: RepairDeps,
): void {
  const evaluateRepair = createRepairEvaluator(services, repair);
  const followOne = (id: string) => followNewIncident(services, cards, evaluateRepair, id);
  processJobs(
    services,
    INCIDENT_FOLLOW_UP_JOB,
    (payload) =>
      followNewIncidents(
        services,
        followOne,
        payload.incident_ids,
        INCIDENT_FOLLOW_UP_JOB.idOf(payload),
      ),
    FOLLOW_UP_CONCURRENCY,
  );
  processJobs(
    services,
    SINGLE_FOLLOW_UP_JOB,
    (payload) =>
      followNewIncidents(
        services,
        followOne,
        [payload.incident_id],
        SINGLE_FOLLOW_UP_JOB.idOf(payload),
      ),
    SINGLE_FOLLOW_UP_CONCURRENCY,
  );
}
