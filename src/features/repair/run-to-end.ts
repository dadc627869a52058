import type { Services } from '../../services.js';
import type { Playbook } from './playbooks.js';
import type { RepairCase } from './repair-case.js';
import type { RepairDecision } from './repair-decision.js';
import type { RepairDeps } from './repair-deps.js';
import { repairResultText } from './repair-result-text.js';
import { type RepairResult, recordExecution, runPlaybook } from './run-playbook.js';

/** The services this file's functions use. */
type RunToEndServices = Pick<Services, 'clock' | 'config' | 'log' | 'oplog' | 'store'>;

/**
 * The end every repair run shares, automatic or approved: the playbook run (or the refusal
 * recorded as a failed execution), the approval's move to `executed` or `failed` even when
 * the run threw, and the result sent to the chat.
 */
export async function runToEnd(
  services: RunToEndServices,
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
