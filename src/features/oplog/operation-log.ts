import { sql } from 'kysely';
import type { Db, Store, Tx } from '../../ports/store.js';
import { builtOnce, insertBuiltOnce } from '../../support/built-once.js';
import { inChunks } from '../../support/in-chunks.js';
import { listNewestFirst, type Page } from '../../support/newest-first.js';
import {
  type ChainVerdict,
  chainBreak,
  chainedRows,
  GENESIS_HASH,
  type OperationType,
  operationView,
  realSuccessesIn,
  type TimedEntry,
} from './operation-entry.js';
import { countRealSuccess } from './playbook-run-counts.js';

export {
  type ChainVerdict,
  GENESIS_HASH,
  OPERATION_TYPES,
  type OperationEntry,
  type OperationType,
  operationHash,
  operationView,
  type TimedEntry,
} from './operation-entry.js';

/**
 * The `operation_log` table's writes: the hash-chained append, the reads it needs under the
 * log's lock, its verification and the log's pages. What other features read from the log
 * is in operation-reads.ts.
 */

/**
 * Appends `items` in order inside a transaction holding the `operation_log` lock
 * (withOperationLogLock): one read of the chain's end and one insert per 500 entries, however
 * many there are. `chainEnd`, when given, must have been read in this same transaction
 * before any append (claimsAndChainEnd): a stale one forks the chain, which only
 * verifyOperationChain would find. Returns their ids.
 */
export async function appendAllInTx(
  tx: Tx,
  items: readonly TimedEntry[],
  chainEnd?: string,
): Promise<string[]> {
  if (items.length === 0) return [];
  const rows = chainedRows(items, chainEnd ?? (await readChainEnd(tx)));
  for (const chunk of inChunks(rows)) await insertOperationRows(tx, chunk);
  for (const playbookId of realSuccessesIn(items)) await countRealSuccess(tx, playbookId);
  return rows.map((row) => row.id);
}

async function readChainEnd(tx: Tx): Promise<string> {
  const last = await tx
    .selectFrom('operation_log')
    .select('hash')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last?.hash ?? GENESIS_HASH;
}

const insertOperationRows = insertBuiltOnce('operation_log', [
  'id',
  'type',
  'incident_id',
  'approval_id',
  'actor',
  'action_detail',
  'success',
  'error_message',
  'context',
  'created_at',
  'prev_hash',
  'hash',
]);

/**
 * Runs `work` in a transaction holding the operation log's lock, the one every append takes:
 * a writer that checks the log before appending (receipts written once) does both inside.
 */
export function withOperationLogLock<T>(store: Store, work: (tx: Tx) => Promise<T>): Promise<T> {
  return store.withLock('operation_log', work);
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
      const reason = chainBreak(row, previous);
      if (reason) return { intact: false, entries, first_broken_id: row.id, reason };
      previous = row.hash;
    }
    if (rows.length < pageSize)
      return { intact: true, entries, first_broken_id: null, reason: null };
    after = rows[rows.length - 1]!.seq;
  }
}

export interface OperationFilters {
  approval_id?: string;
  incident_id?: string;
  type?: string;
}

/** One page of entries, newest first, each whole. */
export function listOperations(
  db: Db,
  filters: OperationFilters,
  page: { limit?: number; cursor?: string },
): Promise<Page<ReturnType<typeof operationView>>> {
  const { approval_id, incident_id, type } = filters;
  return listNewestFirst(db, 'operation_log', { approval_id, incident_id, type }, page, {
    viewsOf: (rows) => rows.map(operationView),
  });
}

/**
 * Which of `values` entries of `type` already carry in `column`: the receipts' action details,
 * or the approvals a claim is about (read under the log's lock to claim).
 */
export async function recordedValues(
  tx: Tx,
  type: OperationType,
  column: 'action_detail' | 'approval_id',
  values: readonly string[],
): Promise<Set<string>> {
  const recorded = new Set<string>();
  for (const chunk of inChunks(values)) {
    const { rows } = await valuesRecorded(tx, { type, column, values: chunk });
    for (const row of rows) {
      const value = row[column as keyof typeof row];
      if (value !== null) recorded.add(value);
    }
  }
  return recorded;
}

/**
 * A claim's two reads as one statement, under the log's lock: which of `approvalIds` have an
 * entry of `type`, and the chain's end (GENESIS_HASH when the log is empty, which then holds
 * no claim either). Past 500 ids, the rest are read as recordedValues does.
 */
export async function claimsAndChainEnd(
  tx: Tx,
  type: OperationType,
  approvalIds: readonly string[],
): Promise<{ claimed: Set<string>; chainEnd: string }> {
  const [first, ...rest] = inChunks(approvalIds);
  if (!first) return { claimed: new Set(), chainEnd: await readChainEnd(tx) };
  const { rows } = await chainEndThenClaims(tx, { type, approvalIds: first });
  const claimed = new Set<string>();
  let chainEnd = GENESIS_HASH;
  for (const row of rows) {
    if (row.hash !== null) chainEnd = row.hash;
    else if (row.approval_id !== null) claimed.add(row.approval_id);
  }
  for (const chunk of rest) {
    for (const id of await recordedValues(tx, type, 'approval_id', chunk)) claimed.add(id);
  }
  return { claimed, chainEnd };
}

/**
 * The chain's end (no row for an empty log), then the claims already written, as one list.
 * A union rather than a join: SQLite plans an `in` list inside a join's `on` as an index it
 * builds for every call, a scan of the whole log. The end is found by `max(seq)`, which both
 * databases read from the key's last entry.
 */
const chainEndThenClaims = builtOnce(
  (db: Db, { type, approvalIds }: { type: OperationType; approvalIds: readonly string[] }) =>
    db
      .selectFrom('operation_log')
      .select((eb) => [
        eb.ref('hash').$castTo<string | null>().as('hash'),
        sql<string | null>`null`.as('approval_id'),
      ])
      .where('seq', '=', (eb) =>
        eb.selectFrom('operation_log').select((inner) => inner.fn.max('seq').as('last')),
      )
      .unionAll(
        db
          .selectFrom('operation_log')
          .select([sql<string | null>`null`.as('hash'), 'approval_id'])
          .where('type', '=', type)
          .where('approval_id', 'in', approvalIds),
      ),
  ({ type, approvalIds }) => [type, ...approvalIds],
  ({ approvalIds }) => approvalIds.length,
);

/** Built once per column and list length: every repair claim and receipt asks it. */
const valuesRecorded = builtOnce(
  (
    db: Db,
    {
      type,
      column,
      values,
    }: { type: OperationType; column: 'action_detail' | 'approval_id'; values: readonly string[] },
  ) =>
    db
      .selectFrom('operation_log')
      .select(column)
      .where('type', '=', type)
      .where(column, 'in', values),
  ({ type, values }) => [type, ...values],
  ({ column, values }) => `${column} ${values.length}`,
);
