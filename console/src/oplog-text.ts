/**
 * How an operation-log entry and an approval's outcome read, so that none misleads at the
 * moment of decision. A dry run changed nothing, so it is neither a green success nor a
 * failure; a policy that blocked an automatic repair did its job, so that is not "failed".
 */

export type Tone = 'ok' | 'failed' | 'neutral';

export interface EntryLike {
  type: string;
  success: boolean;
  context: Record<string, unknown>;
}

export const DRY_RUN_TEXT = 'dry run: nothing was changed';

/** A completed execution by the dry-run executor: recorded steps, nothing run. */
export function isDryRun(entry: EntryLike): boolean {
  return entry.type === 'EXECUTION_COMPLETED' && entry.context.executor === 'dry-run';
}

/** An automatic repair that the policy did not allow. */
export function isBlockedRepair(entry: EntryLike): boolean {
  return entry.type === 'AUTO_REPAIR_TRIGGERED' && !entry.success;
}

/** The badge beside an entry: its tone and word. */
export function entryVerdict(entry: EntryLike): { tone: Tone; text: string } {
  if (isDryRun(entry) && entry.success) return { tone: 'neutral', text: DRY_RUN_TEXT };
  if (isBlockedRepair(entry)) return { tone: 'neutral', text: 'blocked' };
  return entry.success ? { tone: 'ok', text: 'ok' } : { tone: 'failed', text: 'failed' };
}

/** Why the policy blocked a repair, from the entry's recorded decision, else its detail. */
export function blockedReason(entry: EntryLike & { action_detail?: string }): string {
  const decision = entry.context.decision as { reason?: unknown } | undefined;
  if (decision && typeof decision.reason === 'string' && decision.reason) return decision.reason;
  return entry.action_detail ?? 'no reason recorded';
}

export function blockedText(reason: string): string {
  return `Auto-repair blocked: ${reason}`;
}

/** What the approval's own auto-repair field says, or null when it is absent. */
export interface AutoRepair {
  allowed: boolean;
  blocked_by: string | null;
  reason: string;
}

/**
 * The approval's outcome as a sentence, from its own fields (`dry_run`, `auto_repair`) or else
 * from its log: a dry run, a blocked repair, or nothing to add (null).
 */
export function outcomeNotes(
  approval: { dry_run?: boolean | null; auto_repair?: AutoRepair | null },
  entries: readonly (EntryLike & { action_detail?: string })[],
): { dryRun: boolean; blocked: string | null } {
  const dryRun =
    approval.dry_run === true || entries.some((entry) => isDryRun(entry) && entry.success);
  const blockedEntry = entries.find(isBlockedRepair);
  const blocked =
    approval.auto_repair && !approval.auto_repair.allowed
      ? approval.auto_repair.reason
      : blockedEntry
        ? blockedReason(blockedEntry)
        : null;
  return { dryRun, blocked };
}

/**
 * The class of an approval's status badge: an execution that was a dry run reads neutral, not
 * as the green of a change made.
 */
export function statusBadgeClass(status: string, dryRun: boolean | null | undefined): string {
  return dryRun && status === 'executed' ? 'badge status-neutral' : `badge status-${status}`;
}
