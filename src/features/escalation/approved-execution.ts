import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { typedJob } from '../../support/typed-job.js';
import { addFollowUpJob } from '../outbox/outbox-relay.js';
import { executeApprovedPlaybook, type RepairDeps } from '../repair/auto-repair.js';

/** The services this file's functions use. */
type ApprovedExecutionServices = Pick<
  Services,
  'clock' | 'config' | 'jobs' | 'log' | 'metrics' | 'oplog' | 'outbox' | 'store'
>;

/** Payload `{approval_id, actor, channel}`; the name is older than this module and kept for queued jobs. */
export const EXECUTE_APPROVAL_JOB = 'approval.execute';
/** Approved executions were people's decisions; a few of them run side by side. */
const EXECUTION_CONCURRENCY = 4;

const ExecutionPayload = Type.Object({
  approval_id: Type.String({ minLength: 1 }),
  actor: Type.String(),
  // Jobs queued before the console existed carry no channel: they came from the chat.
  channel: Type.String({ default: 'chat' }),
});

/** An approval is approved once, so its execution has one id. */
const executionJobId = (approvalId: string) => `approval-execute-${approvalId}`;

/**
 * CONTRACT, Approvals: "An approved approval's execution is never lost". Written in the
 * decision's own transaction (signApproval's `onApproved`), so a queue that is unreachable at
 * that moment delays the execution; the outbox relay hands it over once the queue is back.
 */
export function addApprovedExecution(
  tx: Tx,
  approvalId: string,
  who: { actor: string; channel: string },
  now: number,
): Promise<void> {
  return addFollowUpJob(
    tx,
    {
      name: EXECUTE_APPROVAL_JOB,
      payload: { approval_id: approvalId, actor: who.actor, channel: who.channel },
      jobId: executionJobId(approvalId),
    },
    now,
  );
}

/** After the decision's commit: never throws; the background relay retries a refused one. */
export async function relayApprovedExecution(
  services: ApprovedExecutionServices,
  approvalId: string,
) {
  await services.outbox.relay(executionJobId(approvalId));
}

export function registerExecutionWorker(
  services: ApprovedExecutionServices,
  repair: RepairDeps,
): void {
  services.jobs.process(
    EXECUTE_APPROVAL_JOB,
    typedJob(EXECUTE_APPROVAL_JOB, ExecutionPayload, services.log, async (payload) => {
      await executeApprovedPlaybook(
        services,
        repair,
        payload.approval_id,
        payload.actor,
        payload.channel,
      );
      await services.outbox.complete(executionJobId(payload.approval_id));
    }),
    EXECUTION_CONCURRENCY,
  );
}
