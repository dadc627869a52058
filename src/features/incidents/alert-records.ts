import type { Db, Tx } from '../../ports/store.js';
import { insertBuiltOnce } from '../../support/built-once.js';

/** The `alerts` table's one module: every alert as received, and what became of it. */

type AlertRow = Parameters<typeof insertAlertRows>[1][number];

const insertAlertRows = insertBuiltOnce('alerts', [
  'alert_id',
  'incident_id',
  'fingerprint',
  'origin',
  'outcome',
  'received_at',
  'payload',
]);

export async function insertAlerts(tx: Db | Tx, alerts: readonly AlertRow[]): Promise<void> {
  await insertAlertRows(tx, alerts);
}

/** The newest alerts of an incident, newest first, each with its payload (the alert as read). */
export function recentAlertsOf(db: Db, incidentId: string, limit: number) {
  return db
    .selectFrom('alerts')
    .select(['alert_id', 'origin', 'outcome', 'received_at', 'payload'])
    .where('incident_id', '=', incidentId)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

/** When the newest alerts (at most `limit`) of some incidents arrived, after `after`. */
export async function alertTimesOf(
  db: Db,
  incidentIds: readonly string[],
  after: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('alerts')
    .select('received_at')
    .where('incident_id', 'in', incidentIds)
    .where('received_at', '>', after)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => row.received_at);
}

/** Alerts received at or after `since`. */
export async function countAlertsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('alerts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('received_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
