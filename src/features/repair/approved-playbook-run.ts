import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { typedJob } from '../../support/typed-job.js';
import type { ApprovedExecution } from '../approvals/decide-approval.js';
import { addFollowUpJob } from '../outbox/outbox-relay.js';
import { matchPlaybook } from './playbooks.js';
import { loadRepairCase } from './repair-case.js';
import type { RepairDeps } from './repair-deps.js';
import type { RepairResult } from './run-playbook.js';
import { runToEnd } from './run-to-end.js';

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
 * CONTRACT, Approvals: "When an approval becomes `approved`, execution starts in the
 * background ... and moves it to `executing`, then `executed` or `failed`." Call it with the
 * approval in `approved`; it makes the `approved` → `executing` move itself, so of two
 * callers only one executes. People override the severity policy (it governs automatic
 * repair only). With the dry-run executor the steps are recorded, not run, and the approval
 * still ends `executed`: the contract's approved path names no other end state, and the
 * EXECUTION_COMPLETED entry says `executor: dry-run` with `simulated` steps.
 * Returns null when the approval was not `approved`.
 */
export async function executeApprovedPlaybook(
  services: ApprovedExecutionServices,
  deps: RepairDeps,
  approvalId: string,
  actor: string,
  channel = 'chat',
): Promise<RepairResult | null> {
  const repair = await loadRepairCase(services.store.db, approvalId);
  if (repair?.approval.status !== 'approved') return null;
  if (!(await deps.moveApproval(approvalId, ['approved'], 'executing', actor, channel)))
    return null;
  const match = matchPlaybook(deps.playbooks, repair.subject);
  let refusal: string | null = null;
  if (!match) {
    refusal = `No playbook matches alert type ${repair.subject.alert_type}`;
  } else if (
    match.playbook.risk_level === 'critical' &&
    repair.approval.risk_level !== 'critical'
  ) {
    // Break-glass needs the two signers of a critical approval (CONTRACT, Approvals); one
    // signature on a lower-risk approval does not unlock a critical playbook.
    refusal = `Playbook ${match.playbook.id} is critical (break-glass) but the approval is ${repair.approval.risk_level}: it needs a critical approval with two signers`;
  }
  return runToEnd(services, deps, repair, refusal ? null : (match?.playbook ?? null), actor, {
    channel,
    refusal,
  });
}

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

/** The approved run as a decision commits and hands it over. */
export function approvedPlaybookRuns(services: ApprovedExecutionServices): ApprovedExecution {
  return {
    addWith: addApprovedExecution,
    relay: (approvalId) => relayApprovedExecution(services, approvalId),
  };
}
