import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { listNewestFirst, type Page } from '../../support/newest-first.js';
import { pendingApprovalRow } from '../approvals/approval-records.js';

/** The `incidents` table's one module: every query on it is here (STYLE, records modules). */

export type IncidentRow = Selectable<Tables['incidents']>;
export type NewIncident = Insertable<Tables['incidents']>;
/** What converging an alert reads of the incident it joins. */
export type IncidentHead = Pick<IncidentRow, 'id' | 'approval_id' | 'hit_count' | 'status'>;
/** CONTRACT, Incident lifecycle. */
export type IncidentStatus = 'open' | 'acknowledged' | 'resolved';

/**
 * The columns a list reads. The message, labels and annotations come from the alert as sent
 * and can be large; they and the grouping explanation are on the detail route.
 */
export const INCIDENT_SUMMARY_COLUMNS = [
  'id',
  'status',
  'severity',
  'alert_name',
  'alert_type',
  'source',
  'target_resource',
  'namespace',
  'workload',
  'fingerprint',
  'hit_count',
  'first_seen',
  'last_seen',
  'approval_id',
] as const;

/** An incident as a list shows it. */
export function incidentSummary(row: Pick<IncidentRow, (typeof INCIDENT_SUMMARY_COLUMNS)[number]>) {
  return {
    id: row.id,
    status: row.status,
    severity: row.severity,
    alert_name: row.alert_name,
    alert_type: row.alert_type,
    source: row.source,
    target_resource: row.target_resource,
    namespace: row.namespace,
    workload: row.workload,
    fingerprint: row.fingerprint,
    hit_count: row.hit_count,
    first_seen: new Date(row.first_seen).toISOString(),
    last_seen: new Date(row.last_seen).toISOString(),
    approval_id: row.approval_id,
  };
}

export type IncidentSummary = ReturnType<typeof incidentSummary>;

export interface IncidentFilters {
  status?: string;
  namespace?: string;
  alert_type?: string;
  fingerprint?: string;
}

/** One page of incidents, newest first, as summaries. */
export function listIncidents(
  db: Db,
  filters: IncidentFilters,
  page: { limit?: number; cursor?: string },
): Promise<Page<IncidentSummary>> {
  const { status, namespace, alert_type, fingerprint } = filters;
  return listNewestFirst(db, 'incidents', { status, namespace, alert_type, fingerprint }, page, {
    columns: INCIDENT_SUMMARY_COLUMNS,
    viewsOf: (rows) => rows.map(incidentSummary),
  });
}

export function findIncident(db: Db | Tx, id: string): Promise<IncidentRow | undefined> {
  return db.selectFrom('incidents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertIncidents(
  tx: Db | Tx,
  incidents: readonly NewIncident[],
): Promise<void> {
  if (incidents.length > 0) await tx.insertInto('incidents').values(incidents).execute();
}

/**
 * For each of `fingerprints`, the newest incident an alert still joins: its approval is
 * pending, or it was first seen after `firstSeenAfter` (the merge rule is converge.ts's).
 * One statement for the lot; a fingerprint with no such incident is absent from the map.
 */
export async function openIncidentsOf(
  tx: Tx,
  fingerprints: readonly string[],
  firstSeenAfter: number,
): Promise<Map<string, IncidentHead>> {
  const open = new Map<string, IncidentHead>();
  if (fingerprints.length === 0) return open;
  const rows = await tx
    .selectFrom('incidents')
    .select([
      'incidents.id',
      'incidents.approval_id',
      'incidents.hit_count',
      'incidents.status',
      'incidents.fingerprint',
    ])
    .where('incidents.fingerprint', 'in', fingerprints)
    .where((eb) =>
      eb.or([
        eb.exists(pendingApprovalRow(tx, eb.ref('incidents.approval_id'))),
        eb('incidents.first_seen', '>', firstSeenAfter),
      ]),
    )
    .orderBy('incidents.seq', 'desc')
    .execute();
  for (const { fingerprint, ...head } of rows)
    if (!open.has(fingerprint)) open.set(fingerprint, head);
  return open;
}

/** The head of an incident that must exist (a replayed signal's); throws when it does not. */
export function incidentHeadOf(tx: Tx, id: string): Promise<IncidentHead> {
  return tx
    .selectFrom('incidents')
    .select(['id', 'approval_id', 'hit_count', 'status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Raises an incident's hit count by `hits` in one statement; returns the new count. */
export async function addIncidentHits(
  tx: Tx,
  id: string,
  hits: number,
  now: number,
): Promise<number> {
  const updated = await tx
    .updateTable('incidents')
    .set({ hit_count: sql`hit_count + ${hits}`, last_seen: now })
    .where('id', '=', id)
    .returning('hit_count')
    .executeTakeFirstOrThrow();
  return updated.hit_count;
}

/** What an incident's move sets besides its status. */
export type IncidentMove = Partial<
  Pick<IncidentRow, 'acknowledged_by' | 'acknowledged_at' | 'resolved_by' | 'resolved_at'>
>;

/**
 * Compare-and-set of an incident's status (CONTRACT, Incident lifecycle): true when this
 * caller made the move, false when the incident was not in one of `from`, so each move
 * happens once however many replicas or requests try it.
 */
export async function moveIncident(
  tx: Tx,
  id: string,
  from: readonly IncidentStatus[],
  to: IncidentStatus,
  fields: IncidentMove,
): Promise<boolean> {
  const moved = await tx
    .updateTable('incidents')
    .set({ status: to, ...fields })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** A resolved incident an alert converged into is open again (converge.ts). */
export async function reopenIncident(tx: Tx, id: string): Promise<boolean> {
  const reopened = await tx
    .updateTable('incidents')
    .set({
      status: 'open',
      resolved_by: null,
      resolved_at: null,
      reopen_count: sql`reopen_count + 1`,
    })
    .where('id', '=', id)
    .where('status', '=', 'resolved')
    .executeTakeFirst();
  return Number(reopened.numUpdatedRows) === 1;
}

/** The newest incident of `fingerprint` that is not resolved. */
export async function unresolvedIncidentOf(db: Db, fingerprint: string) {
  return db
    .selectFrom('incidents')
    .select(['id', 'approval_id'])
    .where('fingerprint', '=', fingerprint)
    .where('status', '!=', 'resolved')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Unresolved incidents that saw no alert since `before`, oldest first (the timeout sweep). */
export async function silentIncidentIds(db: Db, before: number, limit: number) {
  const rows = await db
    .selectFrom('incidents')
    .select('id')
    .where('status', 'in', ['open', 'acknowledged'])
    .where('last_seen', '<', before)
    .orderBy('last_seen')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Ids of the newest incidents (at most `limit`) of one fingerprint or of any of some workloads. */
export async function relatedIncidentIds(
  db: Db,
  of: { fingerprint: string } | { workloads: readonly string[] },
  limit: number,
): Promise<string[]> {
  let related = db.selectFrom('incidents').select('id');
  related =
    'fingerprint' in of
      ? related.where('fingerprint', '=', of.fingerprint)
      : related.where('workload', 'in', of.workloads);
  const rows = await related.orderBy('seq', 'desc').limit(limit).execute();
  return rows.map((row) => row.id);
}

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

/** Incidents that saw an alert at or after `since`. */
export async function countIncidentsSeenSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('incidents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('last_seen', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Incidents opened at or after `since`. */
export async function countIncidentsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('incidents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('first_seen', '>=', since)
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
