import { type TSchema, Type } from 'typebox';
import { PAGE_LIMIT_MAX } from '../support/newest-first.js';

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_LIMIT_MAX,
      default: 50,
      // Query coercion turns `1e400` or `Infinity` into a number after Ajv's type check, and
      // Ajv skips minimum and maximum for a number that is not finite; this second type check
      // runs on the coerced value and refuses it (422 `querystring.limit must be of type integer`).
      allOf: [{ type: 'integer' }],
    }),
  ),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
};

/** The response schema of a list: `{"items": [...], "next_cursor": "…" | null}`. */
export function PageOf<Item extends TSchema>(item: Item) {
  return Type.Object({
    items: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'pass back as cursor for the next page; null on the last page',
    }),
  });
}

/**
 * The page size of a batch read by id: every record named, unless the query asked for a
 * `limit` itself (the schema's default of 50 is not an ask).
 */
export function batchLimit(
  url: string,
  ids: readonly string[] | undefined,
  limit: number | undefined,
): number | undefined {
  if (ids === undefined) return limit;
  const asked = new URL(url, 'http://local').searchParams.has('limit');
  return asked ? limit : ids.length;
}
