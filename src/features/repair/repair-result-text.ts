import type { RepairDecision } from './repair-decision.js';
import type { RepairResult } from './run-playbook.js';

export interface RepairNotice {
  approvalId: string;
  /** Who started it: `auto-repair`, or the approver (e.g. `tg_42`). */
  actor: string;
  playbook: { id: string; name: string } | null;
  executor: 'dry-run' | 'kubectl';
  result: RepairResult;
  /** Present for automatic runs: the chat sees why it was allowed. */
  decision?: RepairDecision;
}

/** Characters of output shown per step; the operation log keeps the full (capped) output. */
const STEP_OUTPUT_CHARS = 200;

/** The chat message for a repair's result (spec, Automatic repair: CHAT_RESULT_SENT). */
export function repairResultText(notice: RepairNotice): string {
  const { result, playbook } = notice;
  const dryRun = notice.executor === 'dry-run';
  const title = !result.success
    ? 'Repair failed'
    : dryRun
      ? 'Repair dry run recorded'
      : 'Repair executed';
  const lines = [
    `${result.success ? (dryRun ? '🧪' : '✅') : '❌'} ${title}`,
    `Approval: ${notice.approvalId}`,
    `Playbook: ${playbook ? `${playbook.name} (${playbook.id})` : 'none'}`,
    `Started by: ${notice.actor} · executor ${notice.executor}`,
  ];
  if (notice.decision) {
    lines.push(`Decision: ${notice.decision.reason}`);
  }
  lines.push(`Steps: ${result.executed_steps.length} in ${result.execution_time_ms} ms`);
  for (const step of result.executed_steps) {
    lines.push(`${step.success ? '•' : '✗'} ${step.step_id}: ${cut(step.output)}`);
  }
  if (result.error) lines.push(`Error: ${cut(result.error)}`);
  if (dryRun && result.success && notice.actor === 'auto-repair') {
    // CONTRACT, Auto-repair: a dry run "leaves the approval `pending` for a person".
    lines.push('Nothing was changed; the approval stays pending for a person.');
  }
  return lines.join('\n');
}

function cut(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > STEP_OUTPUT_CHARS ? `${oneLine.slice(0, STEP_OUTPUT_CHARS)}…` : oneLine;
}
