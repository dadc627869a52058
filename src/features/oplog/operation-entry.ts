import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Tables } from '../../ports/store.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';

/** What an operation-log entry is, its hash and its view: pure, no query (operation-log.ts). */

/**
 * spec, Automatic repair: "Operation-log entry types written" (the first four). The last three
 * are the metadata-only receipts of the readback writers (spec, Readbacks: POST, "writes ...
 * to the operation log"; CONTRACT, Readbacks): dispatch, consumer context and live alert receipts.
 */
export const OPERATION_TYPES = [
  'AUTO_REPAIR_TRIGGERED',
  'EXECUTION_COMPLETED',
  'CHAT_RESULT_SENT',
  'CHAT_SENT',
  'WRITEBACK_DISPATCH_RECEIPT',
  'WRITEBACK_CONSUMER_RECEIPT',
  'ALERT_LIVE_RECEIPT',
] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];

export interface OperationEntry {
  type: OperationType;
  incidentId: string | null;
  approvalId: string | null;
  actor: string;
  actionDetail: string;
  success: boolean;
  errorMessage: string | null;
  context: Record<string, unknown>;
}

export type OperationRow = Selectable<Tables['operation_log']>;

/** The first entry's predecessor. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Each entry's hash covers its content and the previous entry's hash, so altering,
 * removing or reordering any row breaks every hash after it.
 */
export function operationHash(row: Omit<OperationRow, 'seq' | 'hash'>): string {
  const canonical = JSON.stringify([
    row.id,
    row.type,
    row.incident_id,
    row.approval_id,
    row.actor,
    row.action_detail,
    row.success,
    row.error_message,
    row.context,
    row.created_at,
    row.prev_hash,
  ]);
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

export interface ChainVerdict {
  intact: boolean;
  entries: number;
  /** The first entry whose hash or link does not hold. */
  first_broken_id: string | null;
  reason: string | null;
}

export function operationView(row: OperationRow) {
  return {
    id: row.id,
    type: row.type,
    incident_id: row.incident_id,
    approval_id: row.approval_id,
    actor: row.actor,
    action_detail: row.action_detail,
    success: row.success === 1,
    error_message: row.error_message,
    context: JSON.parse(row.context) as Record<string, unknown>,
    created_at: new Date(row.created_at).toISOString(),
    hash: row.hash,
    prev_hash: row.prev_hash,
  };
}

/** Why `row` breaks the chain after an entry hashed `previous`, or null when it holds. */
export function chainBreak(row: OperationRow, previous: string): string | null {
  if (row.prev_hash !== previous) return 'link to the previous entry does not match';
  const { seq: _seq, hash, ...content } = row;
  return operationHash(content) === hash ? null : 'entry content does not match its hash';
}

/** A context's `executor` (`dry-run`, `kubectl`, …), or null when it names none. */
export function executorIn(context: string): string | null {
  const parsed = JSON.parse(context) as { executor?: unknown } | null;
  return typeof parsed?.executor === 'string' ? parsed.executor : null;
}

/** An entry and the time it is recorded at. */
export interface TimedEntry {
  entry: OperationEntry;
  now: number;
}

/** The rows of `items` in order, each linked to the one before, the first to `previous`. */
export function chainedRows(items: readonly TimedEntry[], previous: string): OperationRowInsert[] {
  const rows: OperationRowInsert[] = [];
  let prevHash = previous;
  for (const { entry, now } of items) {
    const row = {
      id: timeOrderedId(),
      type: entry.type,
      incident_id: entry.incidentId,
      approval_id: entry.approvalId,
      actor: entry.actor,
      action_detail: entry.actionDetail,
      success: entry.success ? 1 : 0,
      error_message: entry.errorMessage,
      context: JSON.stringify(entry.context),
      created_at: now,
      prev_hash: prevHash,
    };
    const hash = operationHash(row);
    rows.push({ ...row, hash });
    prevHash = hash;
  }
  return rows;
}

export type OperationRowInsert = Omit<OperationRow, 'seq'>;

/**
 * The playbooks a real (not dry-run) successful run of is recorded by `items`, once per run:
 * their counts rise in the append's transaction (playbook-run-counts.ts).
 */
export function realSuccessesIn(items: readonly TimedEntry[]): string[] {
  const playbooks: string[] = [];
  for (const { entry } of items) {
    const context = entry.context as { playbook_id?: unknown; executor?: unknown };
    if (
      entry.type === 'EXECUTION_COMPLETED' &&
      entry.success &&
      typeof context.playbook_id === 'string' &&
      context.executor !== 'dry-run'
    )
      playbooks.push(context.playbook_id);
  }
  return playbooks;
}
