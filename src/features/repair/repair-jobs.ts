import { bulkhead } from 'cockatiel';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { groupCommit } from '../../support/group-commit.js';
import { moveApproval } from '../approvals/approval-moves.js';
import type { ApprovalStatus } from '../approvals/approval-records.js';
import { publishEvent } from '../events/feed-events.js';
import {
  addFollowUpJob,
  addFollowUpJobs,
  completeFollowUpJob,
  relayFollowUpJob,
  relayFollowUpJobs,
} from '../outbox/outbox-relay.js';
import { evaluateAutoRepair, executeApprovedPlaybook, type RepairDeps } from './auto-repair.js';
import type { Playbook } from './playbooks.js';
import { notifyResultInChat } from './repair-chat.js';

/** Job name (no ':', JobQueue.process); payload `{approval_id}`. */
export const EVALUATE_REPAIR_JOB = 'repair.evaluate';
/** Payload `{approval_id, actor}`; the name is older than this module and kept for queued jobs. */
export const EXECUTE_APPROVAL_JOB = 'approval.execute';
/** Most evaluations are a few queries (blocked, or a dry run); real playbooks mostly wait on the cluster. */
export const REPAIR_JOB_CONCURRENCY = 8;
/** Approved executions were people's decisions; a few more of them run side by side. */
const EXECUTION_CONCURRENCY = 4;

/** The repair feature's collaborators as the service runs them; tests swap single parts. */
export function repairDeps(services: Services, playbooks: readonly Playbook[]): RepairDeps {
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

/** Registers both repair jobs; call before `services.jobs.start()`. */
export function registerRepairWorkers(services: Services, deps: RepairDeps): void {
  services.jobs.process(
    EVALUATE_REPAIR_JOB,
    async (payload) => {
      const approvalId = payload.approval_id;
      if (typeof approvalId !== 'string' || approvalId === '') {
        // A malformed payload never becomes valid on a retry, so it is logged and dropped.
        services.log.error({ payload }, `${EVALUATE_REPAIR_JOB} job without approval_id`);
        return;
      }
      await evaluateAutoRepair(services, deps, approvalId);
      await completeFollowUpJob(services, evaluationJobId(approvalId));
    },
    REPAIR_JOB_CONCURRENCY,
  );
  services.jobs.process(
    EXECUTE_APPROVAL_JOB,
    async (payload) => {
      await executeApprovedPlaybook(
        services,
        deps,
        String(payload.approval_id),
        String(payload.actor),
        // Jobs queued before the console existed carry no channel: they came from the chat.
        typeof payload.channel === 'string' ? payload.channel : 'chat',
      );
    },
    EXECUTION_CONCURRENCY,
  );
}

/**
 * spec, What the service does (4): "After an approval is created, evaluates an automatic
 * repair in the background". The job id makes a second enqueue of one approval a no-op while
 * the first is queued; evaluateAutoRepair itself refuses a second evaluation afterwards.
 */
export function enqueueRepairEvaluation(services: Services, approvalId: string): Promise<string> {
  return services.jobs.enqueue(
    EVALUATE_REPAIR_JOB,
    { approval_id: approvalId },
    { jobId: evaluationJobId(approvalId) },
  );
}

const evaluationJobId = (approvalId: string) => `repair-evaluate-${approvalId}`;

/**
 * The evaluation committed in the transaction that creates the approval (outbox-relay.ts), for
 * a creator outside a job whose retry would enqueue it; relay it after the commit.
 */
export function addRepairEvaluation(tx: Tx, approvalId: string, now: number): Promise<void> {
  return addFollowUpJob(tx, evaluationJob(approvalId), now);
}

function evaluationJob(approvalId: string) {
  return {
    name: EVALUATE_REPAIR_JOB,
    payload: { approval_id: approvalId },
    jobId: evaluationJobId(approvalId),
  };
}

/**
 * For a job that owes several approvals their evaluation (incident follow-ups running side
 * by side). An executor that changes nothing (the dry run) makes an evaluation a few
 * statements, so it runs inside the calling job, which a failure before the decision is
 * recorded makes run again; once recorded, the decision is never made twice (as with the
 * job of its own). At most REPAIR_JOB_CONCURRENCY run at once, as with their own job: each
 * holds a connection while it waits for the operation log's lock. A real executor may wait
 * on the cluster for minutes, so its evaluations are durable jobs of their own: asked for
 * in the same tick, they are committed in one transaction and relayed together. Settles once
 * evaluated or committed; relaying never throws (the background relay retries).
 */
export function createRepairEvaluator(
  services: Services,
  deps: RepairDeps,
): (approvalId: string) => Promise<void> {
  if (!deps.executor.changesState) {
    const slots = bulkhead(REPAIR_JOB_CONCURRENCY, Number.MAX_SAFE_INTEGER);
    return async (approvalId) => {
      await slots.execute(() => evaluateAutoRepair(services, deps, approvalId));
    };
  }
  const { store, clock } = services;
  const scheduled = groupCommit<string>(async (approvalIds) => {
    const distinct = [...new Set(approvalIds)];
    await store.db.transaction().execute((tx) =>
      addFollowUpJobs(
        tx,
        distinct.map((approvalId) => evaluationJob(approvalId)),
        clock.now(),
      ),
    );
    await relayFollowUpJobs(services, distinct.map(evaluationJobId));
  });
  return (approvalId) => scheduled.add(approvalId);
}

/** After the approval's commit: never throws; the background relay retries a refused one. */
export async function relayRepairEvaluation(services: Services, approvalId: string) {
  await relayFollowUpJob(services, evaluationJobId(approvalId));
}

/**
 * CONTRACT, Approvals: "When an approval becomes `approved`, execution starts in the
 * background" — whoever approved it (chat, console) calls this once.
 */
export async function enqueueApprovedExecution(
  services: Services,
  approvalId: string,
  actor: string,
  channel: string,
): Promise<void> {
  await services.jobs.enqueue(EXECUTE_APPROVAL_JOB, { approval_id: approvalId, actor, channel });
}
