/**
 * Rows a multi-row statement may carry: keeps its bound parameters within both dialects'
 * limits (SQLite 32766, PostgreSQL 65535) for tables of up to 60 columns.
 */
export const ROWS_PER_STATEMENT = 500;

/** Splits rows into statements of at most `size` rows each. */
export function inChunks<T>(rows: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Writes `rows` one statement of at most `size` rows at a time, in order. */
export async function forEachChunk<T>(
  rows: readonly T[],
  write: (chunk: T[]) => Promise<unknown>,
  size = ROWS_PER_STATEMENT,
): Promise<void> {
  for (const chunk of inChunks(rows, size)) await write(chunk);
}
