import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../ports/store.js';
import type { StreamEntry } from '../../ports/stream.js';
import { builtOnce } from '../../support/built-once.js';

/** The rows of the SQL stream: entry ids, their order, and the queries every part shares. */
export interface EntryId {
  ms: number;
  seq: number;
}

/** Like Redis: the clock's ms when it moved forward, else the last ms with the next seq. */
export function nextId(last: EntryId, now: number): EntryId {
  return now > last.ms ? { ms: now, seq: 0 } : { ms: last.ms, seq: last.seq + 1 };
}

export function formatId(id: EntryId): string {
  return `${id.ms}-${id.seq}`;
}

export function parseId(id: string): EntryId {
  const match = /^(\d+)(?:-(\d+))?$/.exec(id);
  if (!match) throw new Error(`Invalid stream id "${id}": expected <ms>-<seq>`);
  return { ms: Number(match[1]), seq: Number(match[2] ?? 0) };
}

export function toEntry(row: { ms: number; seq: number; fields: string }): StreamEntry {
  return { id: formatId(row), fields: JSON.parse(row.fields) as Record<string, string> };
}

/**
 * `(ms, seq) <op> id`, spelled so both dialects can range-scan the (stream, ms, seq) key:
 * the leading `ms` bound narrows the index range, the OR settles ties within one ms.
 */
export function compareId(
  table: 'stream_entries' | 'stream_pending',
  op: '<' | '<=' | '>',
  id: EntryId,
): RawBuilder<boolean> {
  const ms = sql.ref(`${table}.ms`);
  const seq = sql.ref(`${table}.seq`);
  const strict = sql.raw(op.startsWith('<') ? '<' : '>');
  const wide = sql.raw(op.startsWith('<') ? '<=' : '>=');
  return sql<boolean>`(${ms} ${wide} ${id.ms} and (${ms} ${strict} ${id.ms} or ${seq} ${sql.raw(op)} ${id.seq}))`;
}

const newestEntry = builtOnce(
  (db: Db, stream: string) =>
    db
      .selectFrom('stream_entries')
      .select(['ms', 'seq'])
      .where('stream', '=', stream)
      .orderBy('ms', 'desc')
      .orderBy('seq', 'desc')
      .limit(1),
  (stream) => [stream, 1],
);

export async function newest(db: Db | Tx, stream: string): Promise<EntryId | undefined> {
  return (await newestEntry(db, stream)).rows[0];
}

const cursorRow = builtOnce(
  (db: Db, { stream, group }: { stream: string; group: string }) =>
    db
      .selectFrom('stream_groups')
      .select(['last_ms', 'last_seq'])
      .where('stream', '=', stream)
      .where('group_name', '=', group),
  ({ stream, group }) => [stream, group],
);

export async function groupCursor(db: Db | Tx, stream: string, group: string) {
  const [row] = (await cursorRow(db, { stream, group })).rows;
  return row ? { ms: row.last_ms, seq: row.last_seq } : undefined;
}

/**
 * Keeps the newest `maxLen` entries (at least one, which carries the last id), and every
 * entry a consumer group still needs: trimming stops below each group's cursor (entries
 * never delivered to it) and below its oldest pending entry (delivered, not acknowledged).
 */
export async function trim(tx: Tx, stream: string, maxLen: number) {
  const keep = Math.max(1, Math.floor(maxLen));
  const cutoff = await tx
    .selectFrom('stream_entries')
    .select(['ms', 'seq'])
    .where('stream', '=', stream)
    .orderBy('ms', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (!cutoff) return;
  // Cursors before pending rows: a read that commits in between moves its cursor and adds
  // its pending rows together, so the later look sees the rows of every entry below the
  // cursor seen first (and an entry only leaves the pending rows once acknowledged).
  const groups = await tx
    .selectFrom('stream_groups')
    .select(['group_name', 'last_ms', 'last_seq'])
    .where('stream', '=', stream)
    .execute();
  let query = tx
    .deleteFrom('stream_entries')
    .where('stream', '=', stream)
    .where(compareId('stream_entries', '<=', cutoff));
  for (const group of groups) {
    const cursor = { ms: group.last_ms, seq: group.last_seq };
    query = query.where(compareId('stream_entries', '<=', cursor));
    const oldestPending = await tx
      .selectFrom('stream_pending')
      .select(['ms', 'seq'])
      .where('stream', '=', stream)
      .where('group_name', '=', group.group_name)
      .orderBy('ms')
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    if (oldestPending) query = query.where(compareId('stream_entries', '<', oldestPending));
  }
  await query.execute();
}

/** What `group` still owes: entries after its cursor, and its pending (unacknowledged) ones. */
export async function groupBacklog(db: Db | Tx, stream: string, group: string) {
  const cursor = await groupCursor(db, stream, group);
  if (!cursor) return { count: 0, oldestMs: null };
  const undelivered = await db
    .selectFrom('stream_entries')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('ms').as('oldest')])
    .where('stream', '=', stream)
    .where(compareId('stream_entries', '>', cursor))
    .executeTakeFirstOrThrow();
  const pending = await db
    .selectFrom('stream_pending')
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('ms').as('oldest')])
    .where('stream', '=', stream)
    .where('group_name', '=', group)
    .executeTakeFirstOrThrow();
  // Pending entries were delivered, so they are older than any entry after the cursor.
  const oldest = pending.oldest ?? undelivered.oldest;
  return {
    count: Number(undelivered.n) + Number(pending.n),
    oldestMs: oldest === null || oldest === undefined ? null : Number(oldest),
  };
}
