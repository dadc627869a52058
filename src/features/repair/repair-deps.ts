import type { Executor } from '../../ports/executor.js';
import type { ApprovalStatus } from '../approvals/approval-domain.js';
import type { Playbook } from './playbooks.js';

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
