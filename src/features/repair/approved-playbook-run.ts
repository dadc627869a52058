import { Type } from 'typebox';
import type { Services } from '../../services.js';
import type { ApprovedExecution, Decider } from '../approvals/decide-approval.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import { matchPlaybook } from './playbooks.js';
import { loadRepairCase } from './repair-case.js';
import type { RepairDeps } from './repair-deps.js';
import type { RepairResult } from './run-playbook.js';
import { runToEnd } from './run-to-end.js';

/** The services this file's functions use. */
type ApprovedExecutionServices = Pick<
  Services,
  'clock' | 'config' | 'followUps' | 'jobs' | 'log' | 'metrics' | 'oplog' | 'outbox' | 'store'
>;

/**
 * An approved approval's playbook run. The name is older than this module and kept for
 * queued jobs; an approval is approved once, so its execution has one id.
 */
export const EXECUTE_APPROVAL_JOB = jobKind(
  'approval.execute',
  Type.Object({
    approval_id: Type.String({ minLength: 1 }),
    actor: Type.String(),
    // Jobs queued before the console existed carry no channel: they came from the chat.
    channel: Type.String({ default: 'chat' }),
  }),
  (payload) => `approval-execute-${payload.approval_id}`,
);
/** Approved executions were people's decisions; a few of them run side by side. */
const EXECUTION_CONCURRENCY = 4;

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

export function registerExecutionWorker(
  services: ApprovedExecutionServices,
  repair: RepairDeps,
): void {
  processJobs(
    services,
    EXECUTE_APPROVAL_JOB,
    async (payload) => {
      await executeApprovedPlaybook(
        services,
        repair,
        payload.approval_id,
        payload.actor,
        payload.channel,
      );
      await services.outbox.complete(EXECUTE_APPROVAL_JOB.idOf(payload));
    },
    EXECUTION_CONCURRENCY,
  );
}

const executionJob = (approvalId: string, who: Decider) =>
  jobOf(EXECUTE_APPROVAL_JOB, { approval_id: approvalId, actor: who.actor, channel: who.channel });

/**
 * The approved run as a decision commits and hands it over. CONTRACT, Approvals: "An approved
 * approval's execution is never lost": written in the decision's own transaction
 * (signApproval's `onApproved`), so a queue that is unreachable at that moment delays the
 * execution; the relay hands it over once the queue is back. The hand-over never throws.
 */
export function approvedPlaybookRuns(services: ApprovedExecutionServices): ApprovedExecution {
  return {
    addWith: (tx, approvalId, who, now) =>
      services.followUps.add(tx, [executionJob(approvalId, who)], now),
    relay: (approvalId, who) => services.followUps.relay([executionJob(approvalId, who)]),
  };
}
