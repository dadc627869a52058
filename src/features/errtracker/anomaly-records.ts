import type { Db } from '../../ports/store.js';

/** The `anomaly_occurrences` table's one module: when each anomaly key was seen. */

export async function recordAnomalyOccurrence(db: Db, key: string, now: number): Promise<void> {
  await db
    .insertInto('anomaly_occurrences')
    .values({ anomaly_key: key, occurred_at: now })
    .execute();
}

/** When the anomaly `key` occurred after `after`, in no particular order. */
export async function anomalyOccurrencesAfter(
  db: Db,
  key: string,
  after: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('anomaly_occurrences')
    .select('occurred_at')
    .where('anomaly_key', '=', key)
    .where('occurred_at', '>', after)
    .execute();
  return rows.map((row) => row.occurred_at);
}
