import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { groupCommit } from '../../support/group-commit.js';
import type { ApprovalStatus } from '../approvals/approval-domain.js';
import { moveApproval } from '../approvals/approval-moves.js';
import { publishEvent } from '../events/feed-events.js';
import type { IncidentRow } from '../incidents/incident-records.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import { evaluateAutoRepair } from './auto-repair.js';
import type { Playbook } from './playbooks.js';
import { notifyResultInChat } from './repair-chat.js';
import type { RepairDeps } from './repair-deps.js';

/** The services this file's functions use. */
export type RepairJobsServices = Pick<
  Services,
  | 'chat'
  | 'clock'
  | 'config'
  | 'executor'
  | 'feed'
  | 'followUps'
  | 'jobs'
  | 'leases'
  | 'log'
  | 'metrics'
  | 'oplog'
  | 'outbox'
  | 'store'
>;

/** An approval's repair evaluation; one per approval. */
export const EVALUATE_REPAIR_JOB = jobKind(
  'repair.evaluate',
  Type.Object({ approval_id: Type.String({ minLength: 1 }) }),
  (payload) => `repair-evaluate-${payload.approval_id}`,
);
/** Most evaluations are a few queries (blocked, or a dry run); real playbooks mostly wait on the cluster. */
export const REPAIR_JOB_CONCURRENCY = 8;

/** The repair feature's collaborators as the service runs them; tests swap single parts. */
export function repairDeps(
  services: RepairJobsServices,
  playbooks: readonly Playbook[],
): RepairDeps {
  return {
    executor: services.executor,
    playbooks,
    moveApproval: async (id, from, to, actor, channel) => {
      const moved = await moveApproval(services.store, id, from, to as ApprovalStatus, {
        actor,
        channel,
        now: services.clock.now(),
      });
      if (moved)
        publishEvent(services, 'approval.updated', { approval_id: id, status: to, actor, channel });
      return moved;
    },
    notifyResult: notifyResultInChat(services),
  };
}

/** Registers the evaluation job; call before `services.jobs.start()`. */
export function registerRepairWorkers(services: RepairJobsServices, deps: RepairDeps): void {
  processJobs(
    services,
    EVALUATE_REPAIR_JOB,
    async (payload) => {
      await evaluateAutoRepair(services, deps, payload.approval_id);
      await services.outbox.complete(EVALUATE_REPAIR_JOB.idOf(payload));
    },
    REPAIR_JOB_CONCURRENCY,
  );
}

/**
 * spec, What the service does (4): "After an approval is created, evaluates an automatic
 * repair in the background". The job id makes a second enqueue of one approval a no-op while
 * the first is queued; evaluateAutoRepair itself refuses a second evaluation afterwards.
 */
export function enqueueRepairEvaluation(
  services: RepairJobsServices,
  approvalId: string,
): Promise<string> {
  const { name, payload, jobId } = evaluationJob(approvalId);
  return services.jobs.enqueue(name, payload, { jobId });
}

/**
 * The evaluation committed in the transaction that creates the approval (outbox-relay.ts), for
 * a creator outside a job whose retry would enqueue it; relay it after the commit.
 */
export function addRepairEvaluation(
  services: Pick<Services, 'followUps'>,
  tx: Tx,
  approvalId: string,
  now: number,
): Promise<void> {
  return services.followUps.add(tx, [evaluationJob(approvalId)], now);
}

const evaluationJob = (approvalId: string) =>
  jobOf(EVALUATE_REPAIR_JOB, { approval_id: approvalId });

/** Evaluates one approval's repair; `incidentRead`, its incident as the caller just read it. */
export type EvaluateRepair = (approvalId: string, incidentRead?: IncidentRow) => Promise<void>;

/**
 * For a job that owes several approvals their evaluation (incident follow-ups running side
 * by side). An executor that changes nothing (the dry run) makes an evaluation a few
 * statements, so it runs inside the calling job, which a failure before the decision is
 * recorded makes run again; once recorded, the decision is never made twice (as with the
 * job of its own). The calling job's concurrency bounds them; their claims wait for the
 * operation log's lock together, in one transaction (operation-claims.ts). A real executor may wait
 * on the cluster for minutes, so its evaluations are durable jobs of their own: asked for
 * in the same tick, they are committed in one transaction and relayed together. Settles once
 * evaluated or committed; relaying never throws (the background relay retries).
 */
export function createRepairEvaluator(
  services: RepairJobsServices,
  deps: RepairDeps,
): EvaluateRepair {
  if (!deps.executor.changesState) {
    return async (approvalId, incidentRead) => {
      await evaluateAutoRepair(services, deps, approvalId, incidentRead);
    };
  }
  const { store, clock } = services;
  const scheduled = groupCommit<string>(async (approvalIds) => {
    const distinct = [...new Set(approvalIds)];
    await store.db.transaction().execute((tx) =>
      services.followUps.add(
        tx,
        distinct.map((approvalId) => evaluationJob(approvalId)),
        clock.now(),
      ),
    );
    await services.followUps.relay(distinct.map(evaluationJob));
  });
  return (approvalId) => scheduled.add(approvalId);
}

/** After the approval's commit: never throws; the background relay retries a refused one. */
export async function relayRepairEvaluation(services: RepairJobsServices, approvalId: string) {
  await services.followUps.relay([evaluationJob(approvalId)]);
}
