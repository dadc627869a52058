import crypto from 'node:crypto';
import type { Db, Store } from '../../ports/store.js';
import {
  appendAllInTx,
  type OperationType,
  recordedValues,
  withOperationLogLock,
} from '../oplog/operation-log.js';
import { operationsOfType } from '../oplog/operation-reads.js';

/** Who the readback writers write as (spec, Readbacks: POST; operation-log `actor`). */
export const READBACK_WRITER_ACTOR = 'readback-writer';

/**
 * One metadata-only receipt. `key` is its identity: the same key is never written twice, so
 * running a writer again writes nothing new (docs/api.md, Readbacks: each receipt once). It is stored as the
 * entry's action_detail, so ids and hashes only: never a payload.
 */
export interface NewReceipt {
  key: string;
  incidentId?: string | null;
  context: Record<string, unknown>;
}

export interface StoredReceipt {
  id: string;
  key: string;
  recorded_at: string;
  context: Record<string, unknown>;
}

export interface WriteOutcome {
  written: StoredReceipt[];
  /** Keys already in the log before this call. */
  already_recorded: string[];
}

/** Short content hash for receipt keys and version references. */
export function shortHash(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Appends the receipts whose key is not yet recorded, under the operation log's lock, so two
 * writers running at once still record each key once.
 */
export function appendReceiptsOnce(
  store: Store,
  type: OperationType,
  receipts: readonly NewReceipt[],
  now: number,
): Promise<WriteOutcome> {
  if (receipts.length === 0) return Promise.resolve({ written: [], already_recorded: [] });
  return withOperationLogLock(store, async (tx) => {
    const keys = [...new Set(receipts.map((receipt) => receipt.key))];
    const existing = await recordedValues(tx, type, 'action_detail', keys);
    const fresh: Array<NewReceipt & { context: Record<string, unknown> }> = [];
    for (const receipt of receipts) {
      if (existing.has(receipt.key)) continue;
      existing.add(receipt.key);
      const context = { receipt_key: receipt.key, metadata_only: true, ...receipt.context };
      fresh.push({ ...receipt, context });
    }
    const ids = await appendAllInTx(
      tx,
      fresh.map(({ key, context, incidentId }) => ({
        entry: {
          type,
          incidentId: incidentId ?? null,
          approvalId: null,
          actor: READBACK_WRITER_ACTOR,
          actionDetail: key,
          success: true,
          errorMessage: null,
          context,
        },
        now,
      })),
    );
    const recordedAt = new Date(now).toISOString();
    const written: StoredReceipt[] = fresh.map(({ key, context }, index) => ({
      id: ids[index]!,
      key,
      recorded_at: recordedAt,
      context,
    }));
    const writtenKeys = new Set(written.map((receipt) => receipt.key));
    const already = keys.filter((key) => !writtenKeys.has(key));
    return { written, already_recorded: already };
  });
}

/** Every receipt of one type, oldest first. */
export async function readReceipts(db: Db, type: OperationType): Promise<StoredReceipt[]> {
  const rows = await operationsOfType(db, type);
  return rows.map((row) => ({
    id: row.id,
    key: row.action_detail,
    recorded_at: new Date(Number(row.created_at)).toISOString(),
    context: JSON.parse(row.context) as Record<string, unknown>,
  }));
}
