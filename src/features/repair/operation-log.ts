import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db, Store, Tables, Tx } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';

/**
 * spec, Automatic repair: "Operation-log entry types written" (the first four). The last three
 * are the metadata-only receipts of the readback writers (spec, Readbacks: POST, "writes ...
 * to the operation log"; issue 6): dispatch, consumer context and live alert receipts.
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

type OperationRow = Selectable<Tables['operation_log']>;

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

/** Appends inside a transaction holding the `operation_log` lock (check-then-append writers). */
export async function appendInTx(tx: Tx, entry: OperationEntry, now: number): Promise<string> {
  const last = await tx
    .selectFrom('operation_log')
    .select('hash')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const row = {
    id: crypto.randomUUID(),
    type: entry.type,
    incident_id: entry.incidentId,
    approval_id: entry.approvalId,
    actor: entry.actor,
    action_detail: entry.actionDetail,
    success: entry.success ? 1 : 0,
    error_message: entry.errorMessage,
    context: JSON.stringify(entry.context),
    created_at: now,
    prev_hash: last?.hash ?? GENESIS_HASH,
  };
  await tx
    .insertInto('operation_log')
    .values({ ...row, hash: operationHash(row) })
    .execute();
  return row.id;
}

type Append = (item: { entry: OperationEntry; now: number }) => Promise<string>;
const appenders = new WeakMap<Store, Append>();

/**
 * Appends one entry; appends are serialized so the chain has one line, and entries arriving
 * together share one transaction (one lock, one commit). Returns its id.
 */
export function appendOperation(store: Store, entry: OperationEntry, now: number): Promise<string> {
  let append = appenders.get(store);
  if (!append) {
    const batch = groupCommit<{ entry: OperationEntry; now: number }, string>((items) =>
      store.withLock('operation_log', async (tx) => {
        const ids: string[] = [];
        for (const item of items) ids.push(await appendInTx(tx, item.entry, item.now));
        return ids;
      }),
    );
    append = (item) => batch.add(item);
    appenders.set(store, append);
  }
  return append({ entry, now });
}

export interface ChainVerdict {
  intact: boolean;
  entries: number;
  /** The first entry whose hash or link does not hold. */
  first_broken_id: string | null;
  reason: string | null;
}

/** Walks the whole chain in order, in pages, recomputing every hash. */
export async function verifyOperationChain(db: Db, pageSize = 1000): Promise<ChainVerdict> {
  let previous = GENESIS_HASH;
  let after = 0;
  let entries = 0;
  for (;;) {
    const rows = await db
      .selectFrom('operation_log')
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      entries += 1;
      if (row.prev_hash !== previous) {
        return {
          intact: false,
          entries,
          first_broken_id: row.id,
          reason: 'link to the previous entry does not match',
        };
      }
      const { seq: _seq, hash, ...content } = row;
      if (operationHash(content) !== hash) {
        return {
          intact: false,
          entries,
          first_broken_id: row.id,
          reason: 'entry content does not match its hash',
        };
      }
      previous = hash;
    }
    if (rows.length < pageSize)
      return { intact: true, entries, first_broken_id: null, reason: null };
    after = rows[rows.length - 1]!.seq;
  }
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
