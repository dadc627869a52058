import { sql } from 'kysely';
import type { Db } from '../../ports/store.js';

/**
 * Counts over the `incidents` table for metrics, readbacks and the read API. The table's
 * records module spreads over this file and incident-records.ts, which has its rows and moves.
 */

/** Per alert type: how many incidents, and when one was last seen. */
export async function incidentsByAlertType(
  db: Db,
): Promise<Array<{ alert_type: string; incidents: number; last_seen: number }>> {
  const rows = await db
    .selectFrom('incidents')
    .select([
      'alert_type',
      sql<number>`count(*)`.as('incidents'),
      sql<number>`max(last_seen)`.as('last_seen'),
    ])
    .groupBy('alert_type')
    .execute();
  return rows.map((row) => ({
    alert_type: row.alert_type,
    incidents: Number(row.incidents),
    last_seen: Number(row.last_seen),
  }));
}

/** When any incident last saw an alert; null before the first. */
export async function lastIncidentSeenAt(db: Db): Promise<number | null> {
  const latest = await db
    .selectFrom('incidents')
    .select('last_seen')
    .orderBy('last_seen', 'desc')
    .limit(1)
    .executeTakeFirst();
  return latest ? Number(latest.last_seen) : null;
}

/** Incidents opened (`first_seen`), or that saw an alert (`last_seen`), at or after `since`. */
export async function countIncidentsSince(
  db: Db,
  since: number,
  by: 'first_seen' | 'last_seen' = 'first_seen',
): Promise<number> {
  const row = await db
    .selectFrom('incidents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(by, '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * CONTRACT, Operator console: `incidents_open` counts incidents `open` or `acknowledged`, per
 * severity (the `incidents_unresolved_last_seen` index starts with `status`).
 */
export async function countUnresolvedBySeverity(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('incidents')
    .select(['severity', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['open', 'acknowledged'])
    .groupBy('severity')
    .execute();
  return new Map(rows.map((row) => [row.severity, Number(row.n)]));
}
