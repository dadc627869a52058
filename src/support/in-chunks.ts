/**
 * Rows a multi-row statement may carry: keeps its bound parameters within both dialects'
 * limits (SQLite 32766, PostgreSQL 65535) for tables of up to 60 columns.
 */
export const ROWS_PER_STATEMENT = 500;

/** Splits rows into statements of at most `size` rows each. */
export function inChunks<T>(rows: T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}
