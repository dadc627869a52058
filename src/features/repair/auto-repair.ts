import type { Executor } from '../../ports/executor.js';
import type { Services } from '../../services.js';
import type { ApprovalStatus } from '../approvals/approval-domain.js';
import type { IncidentRow } from '../incidents/incident-records.js';
import type { TimedEntry } from '../oplog/operation-entry.js';
import { lookUpRealSuccesses } from '../oplog/playbook-run-counts.js';
import { matchPlaybook, type Playbook } from './playbooks.js';
import { loadRepairCase, type RepairCase } from './repair-case.js';
import { decideRepair, type RepairDecision } from './repair-decision.js';
import { repairResultText } from './repair-result-text.js';
import {
  executionEntry,
  playSteps,
  type RepairResult,
  recordExecution,
  runPlaybook,
} from './run-playbook.js';

/** The services this file's functions use. */
type AutoRepairServices = Pick<Services, 'clock' | 'config' | 'log' | 'oplog' | 'store'>;

/** CONTRACT, Auto-repair: automatic moves are made "with actor `auto-repair`". */
export const AUTO_REPAIR_ACTOR = 'auto-repair';

/**
 * Atomic compare-and-set of an approval's status, recorded with who and from which channel
 * (README, Approvals and repair: every move under the approval's lock). Resolves false when the status was not one of `from`.
 */
export type MoveApproval = (
  approvalId: string,
  from: readonly ApprovalStatus[],
  to: ApprovalStatus,
  actor: string,
  channel: string,
) => Promise<boolean>;

export interface RepairMessage {
  text: string;
  approval_id: string;
  incident_id: string | null;
  actor: string;
}

/** Sends a repair's result to the chat (spec, Automatic repair) and records CHAT_RESULT_SENT. */
export type NotifyResult = (message: RepairMessage) => Promise<void>;

/** What the repair feature needs beyond Services; app.ts builds it once. */
export interface RepairDeps {
  executor: Executor;
  playbooks: readonly Playbook[];
  moveApproval: MoveApproval;
  notifyResult: NotifyResult;
}

/**
 * spec, What the service does (4): evaluates an automatic repair after an approval is created.
 * Writes AUTO_REPAIR_TRIGGERED with the decision; when allowed, runs the playbook. A dry run
 * leaves the approval `pending`; a real executor moves it `pending` → `executing` →
 * `executed`/`failed` as `auto-repair` (CONTRACT, Auto-repair). Returns null when it did not
 * evaluate: the approval is gone, no longer `pending`, or was evaluated before. `incidentRead`:
 * its incident, when the caller has just read it (loadRepairCase).
 */
export async function evaluateAutoRepair(
  services: AutoRepairServices,
  deps: RepairDeps,
  approvalId: string,
  incidentRead?: IncidentRow,
): Promise<RepairDecision | null> {
  const { store, clock, log } = services;
  const repair = await loadRepairCase(store.db, approvalId, incidentRead);
  if (repair?.approval.status !== 'pending') {
    log.info({ approvalId, status: repair?.approval.status }, 'auto-repair skipped');
    return null;
  }
  const match = matchPlaybook(deps.playbooks, repair.subject);
  const decision = decideRepair({
    severity: repair.severity,
    risk_level: repair.approval.risk_level,
    match,
    successfulRuns: match ? ((await lookUpRealSuccesses(store.db, match.playbook.id)) ?? 0) : 0,
  });
  // A dry run changes nothing, so it is played before the claim and its record written in
  // the claim's own transaction: one lock and one commit for the decision and the run.
  const dryRun =
    decision.can_auto_repair && match && !deps.executor.changesState
      ? await playSteps(
          { executor: deps.executor, kubectlContext: services.config.kubectlContext },
          match.playbook,
          repair.target,
        )
      : undefined;
  // At most one evaluation per approval, even when a job repeats or two run at once. The
  // AUTO_REPAIR_TRIGGERED entry is the claim: checked and written in one transaction under the
  // log's lock, so no crash can leave a claim without its entry (the approval is then simply
  // evaluated again) or an entry twice.
  const entries: TimedEntry[] = [
    {
      entry: {
        type: 'AUTO_REPAIR_TRIGGERED',
        incidentId: repair.target.incident_id,
        approvalId,
        actor: AUTO_REPAIR_ACTOR,
        actionDetail: decision.can_auto_repair
          ? `Auto-repair allowed: playbook ${decision.playbook?.id}`
          : `Auto-repair blocked (${decision.blocked_by}): ${decision.reason}`,
        success: decision.can_auto_repair,
        errorMessage: null,
        context: { decision, subject: repair.subject, executor: deps.executor.name },
      },
      now: clock.now(),
    },
  ];
  if (dryRun && match) {
    const steps = match.playbook.steps.length;
    const entry = executionEntry(deps.executor, dryRun, repair.target, AUTO_REPAIR_ACTOR, steps);
    entries.push({ entry, now: clock.now() });
  }
  const claimed = await services.oplog.appendOncePerApproval({
    approvalId,
    type: 'AUTO_REPAIR_TRIGGERED',
    entries,
  });
  if (!claimed) return null;
  if (!decision.can_auto_repair || !match) return decision;

  const settles = deps.executor.changesState;
  if (settles) {
    const moved = await deps.moveApproval(
      approvalId,
      ['pending'],
      'executing',
      AUTO_REPAIR_ACTOR,
      AUTO_REPAIR_ACTOR,
    );
    // A person decided between our read and the move; their decision stands.
    if (!moved) return decision;
  }
  await runToEnd(services, deps, repair, match.playbook, AUTO_REPAIR_ACTOR, {
    channel: settles ? AUTO_REPAIR_ACTOR : null,
    decision,
    ran: dryRun,
  });
  return decision;
}

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
  services: AutoRepairServices,
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

async function runToEnd(
  services: AutoRepairServices,
  deps: RepairDeps,
  repair: RepairCase,
  playbook: Playbook | null,
  actor: string,
  options: {
    channel: string | null;
    decision?: RepairDecision;
    refusal?: string | null;
    /** A run already played and recorded (the dry run of an automatic repair). */
    ran?: RepairResult;
  },
): Promise<RepairResult> {
  const run = { oplog: services.oplog, clock: services.clock, executor: deps.executor };
  // A run given in `ran` was recorded with its claim already.
  let result: RepairResult | undefined = options.ran;
  try {
    if (result === undefined && playbook) {
      result = await runPlaybook(
        { ...run, kubectlContext: services.config.kubectlContext },
        playbook,
        repair.target,
        actor,
      );
    } else if (result === undefined) {
      result = {
        success: false,
        playbook_id: null,
        executed_steps: [],
        execution_time_ms: 0,
        error: options.refusal ?? 'No playbook to execute',
      };
      await recordExecution(run, result, repair.target, actor, 0);
    }
  } finally {
    // Even when the run threw, the approval must not stay `executing` forever.
    if (options.channel !== null) {
      const to = result?.success ? 'executed' : 'failed';
      await deps.moveApproval(repair.approval.id, ['executing'], to, actor, options.channel);
    }
  }
  const text = repairResultText({
    approvalId: repair.approval.id,
    actor,
    playbook: playbook ? { id: playbook.id, name: playbook.name } : null,
    executor: deps.executor.name,
    result,
    decision: options.decision,
  });
  try {
    await deps.notifyResult({
      text,
      approval_id: repair.approval.id,
      incident_id: repair.target.incident_id,
      actor,
    });
  } catch (error) {
    services.log.warn({ err: error, approvalId: repair.approval.id }, 'repair result not sent');
  }
  return result;
}
