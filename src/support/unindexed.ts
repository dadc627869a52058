import { type DialectAdapter, type RawBuilder, SqliteAdapter, sql } from 'kysely';

/** Any Kysely instance or transaction: only its dialect is read. */
interface OnDialect {
  getExecutor(): { readonly adapter: DialectAdapter };
}

/**
 * A column as a guard that SQLite may not serve from an index, for `where <key> in (…) and
 * <guard>` statements. Without statistics SQLite's planner takes an equality on a
 * non-unique index to match about 10 rows, so for a longer IN list it walks the guard's
 * index (in a storm, every pending row, for each batch) instead of looking the keys up.
 * `coalesce(c, c)` is `c`, but no index matches it. PostgreSQL plans from statistics, and
 * hiding the column there would cost it a good index, so it gets the column itself.
 */
export function unindexed<T>(db: OnDialect, column: string): RawBuilder<T> {
  const onSqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  return onSqlite
    ? sql<T>`coalesce(${sql.ref(column)}, ${sql.ref(column)})`
    : sql<T>`${sql.ref(column)}`;
}
