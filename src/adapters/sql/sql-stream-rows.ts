import { type RawBuilder, sql } from 'kysely';
import type { Db, Tx } from '../../ports/store.js';
import type { StreamEntry } from '../../ports/stream.js';

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

export function newest(db: Db | Tx, stream: string) {
  return db
    .selectFrom('stream_entries')
    .select(['ms', 'seq'])
    .where('stream', '=', stream)
    .orderBy('ms', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function groupCursor(db: Db | Tx, stream: string, group: string) {
  const row = await db
    .selectFrom('stream_groups')
    .select(['last_ms', 'last_seq'])
    .where('stream', '=', stream)
    .where('group_name', '=', group)
    .executeTakeFirst();
  return row ? { ms: row.last_ms, seq: row.last_seq } : undefined;
}

/** Keeps the newest `maxLen` entries (at least one, which carries the last id). */
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
  await tx
    .deleteFrom('stream_entries')
    .where('stream', '=', stream)
    .where(compareId('stream_entries', '<=', cutoff))
    .execute();
  await tx
    .deleteFrom('stream_pending')
    .where('stream', '=', stream)
    .where(compareId('stream_pending', '<=', cutoff))
    .execute();
}
