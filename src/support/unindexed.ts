import { type RawBuilder, sql } from 'kysely';

/**
 * A column as a guard that no index may serve, for `where <key> in (…) and <guard>`
 * statements. Without statistics SQLite's planner takes an equality on a non-unique index
 * to match about 10 rows, so for a longer IN list it walks the guard's index (in a storm,
 * every pending row, for each batch) instead of looking the keys up. `coalesce(c, c)` is
 * `c` in SQLite and PostgreSQL alike, but no index matches it.
 */
export function unindexed<T>(column: string): RawBuilder<T> {
  return sql<T>`coalesce(${sql.ref(column)}, ${sql.ref(column)})`;
}
