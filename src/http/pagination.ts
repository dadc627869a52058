import { Type } from 'typebox';
import { errors } from '../errors.js';

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
