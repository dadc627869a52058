import type { Kysely, Selectable } from 'kysely';
import { errors } from '../errors.js';
import type { Db, Tables } from '../ports/store.js';

/** The most items one page holds, whatever `limit` asks for. */
export const PAGE_LIMIT_MAX = 200;

/**
 * The most bytes one page of a list carries serialized. Lists return summaries and the full
 * record belongs to the detail route, so a page this size is far more than a screen shows;
 * the budget stops a page of large records (an incident's labels, an operation's context,
 * each bounded only by the 1 MiB request body) from growing to hundreds of MiB.
 */
export const PAGE_BYTE_BUDGET = 1024 * 1024;

/** Room kept in the budget for what surrounds the items: `{"items":[…],"next_cursor":"…"}`. */
const PAGE_ENVELOPE_BYTES = 512;

export interface Page<Item> {
  items: Item[];
  next_cursor: string | null;
}

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

/**
 * One page of `rows` (fetched one beyond `limit` to know whether more exist) shown through
 * `viewOf`: at most `limit` items, and only as many as fit in `budget` bytes serialized, but
 * never none. `next_cursor` points after the last item returned, so following the cursors
 * visits every row exactly once.
 */
export function pageOf<Row, Item>(
  rows: readonly Row[],
  limit: number,
  positionOf: (row: Row) => string | number,
  viewOf: (row: Row, index: number) => Item,
  budget: number = PAGE_BYTE_BUDGET,
): Page<Item> {
  const items: Item[] = [];
  let last: Row | undefined;
  let bytes = PAGE_ENVELOPE_BYTES;
  for (const [index, row] of rows.slice(0, limit).entries()) {
    const item = viewOf(row, index);
    // The item as sent, and the comma before it.
    bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
    if (items.length > 0 && bytes > budget) break;
    items.push(item);
    last = row;
  }
  return {
    items,
    next_cursor:
      rows.length > items.length && last !== undefined ? encodeCursor(positionOf(last)) : null,
  };
}

/** Tables listed newest first by their `seq` row number. */
type SeqTable = 'incidents' | 'approvals' | 'external_alert_events' | 'operation_log';

export interface Listing<Row, Column extends keyof Row & string, Item> {
  /** The columns the views read; every column when absent (`seq` is always read). */
  columns?: readonly Column[];
  /** The items of a page's rows, in order; one call per page. */
  viewsOf: (rows: Array<Pick<Row, Column>>) => Item[] | Promise<Item[]>;
}

/**
 * One page of `table`, newest first: rows before the cursor, equal to every given filter
 * (or to one of its values, for a list),
 * shown through `listing.viewsOf` within the page's byte budget.
 * The one listing code path of the read API.
 */
export async function listNewestFirst<
  T extends SeqTable,
  Item,
  Column extends keyof Selectable<Tables[T]> & string = keyof Selectable<Tables[T]> & string,
>(
  db: Db,
  table: T,
  filters: Partial<
    Record<keyof Selectable<Tables[T]> & string, string | readonly string[] | undefined>
  >,
  page: { limit?: number; cursor?: string },
  listing: Listing<Selectable<Tables[T]>, Column, Item>,
): Promise<Page<Item>> {
  const limit = page.limit ?? 50;
  const before = decodeSeqCursor(page.cursor);
  // Kysely cannot type a query over a table chosen at run time; the signature above can.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const base = (db as Kysely<any>).selectFrom(table as string);
  let select = listing.columns
    ? base.select([...new Set(['seq', ...listing.columns])])
    : base.selectAll();
  if (before !== undefined) select = select.where('seq', '<', before);
  for (const [column, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    // A list is any of its values (the read API's batch reads by id).
    select = Array.isArray(value)
      ? select.where(column, 'in', value)
      : select.where(column, '=', value);
  }
  const rows = (await select
    .orderBy('seq', 'desc')
    .limit(limit + 1)
    .execute()) as Array<Pick<Selectable<Tables[T]>, Column> & { seq: number }>;
  const views = await listing.viewsOf(rows.slice(0, limit));
  return pageOf(
    rows,
    limit,
    (row) => row.seq,
    (_row, index) => views[index] as Item,
  );
}
