import type { Kysely, Selectable } from 'kysely';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import type { Db, Tables } from '../ports/store.js';

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
};

/** Cursors are opaque to clients: a base64url-wrapped position (a row sequence or stream id). */
export function encodeCursor(position: string | number): string {
  return Buffer.from(`c1:${position}`).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith('c1:') || text.length === 3) throw errors.badCursor();
  return text.slice(3);
}

export function decodeSeqCursor(cursor: string | undefined): number | undefined {
  const position = decodeCursor(cursor);
  if (position === undefined) return undefined;
  const seq = Number(position);
  if (!Number.isSafeInteger(seq)) throw errors.badCursor();
  return seq;
}

/** Fetches one row more than the page to know whether a next page exists. */
export function pageOf<T>(
  rows: T[],
  limit: number,
  positionOf: (row: T) => string | number,
): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    next_cursor: rows.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null,
  };
}

/** Tables listed newest first by their `seq` row number. */
type SeqTable = 'incidents' | 'approvals' | 'external_alert_events' | 'operation_log';

/**
 * One page of `table`, newest first: rows before the cursor, equal to every given filter.
 * The one listing code path of the read API.
 */
export async function listNewestFirst<T extends SeqTable>(
  db: Db,
  table: T,
  filters: Partial<Record<keyof Selectable<Tables[T]> & string, string | undefined>>,
  page: { limit?: number; cursor?: string },
): Promise<{ items: Selectable<Tables[T]>[]; next_cursor: string | null }> {
  const limit = page.limit ?? 50;
  const before = decodeSeqCursor(page.cursor);
  // Kysely cannot type a query over a table chosen at run time; the signature above can.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  let select = (db as Kysely<any>).selectFrom(table).selectAll();
  if (before !== undefined) select = select.where('seq', '<', before);
  for (const [column, value] of Object.entries(filters)) {
    if (value !== undefined) select = select.where(column, '=', value);
  }
  const rows = (await select
    .orderBy('seq', 'desc')
    .limit(limit + 1)
    .execute()) as Array<Selectable<Tables[T]> & { seq: number }>;
  return pageOf(rows, limit, (row) => row.seq);
}
