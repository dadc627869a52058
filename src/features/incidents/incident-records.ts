import { type Selectable, sql } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { batchedLookup } from '../../support/batched-lookup.js';
import { builtOnce, insertBuiltOnce } from '../../support/built-once.js';
import { inChunks } from '../../support/in-chunks.js';
import { decodeSeqCursor, type Page, pageOf } from '../../support/newest-first.js';
import {
  decodeUrgencyCursor,
  INCIDENT_OPENING_COLUMNS,
  INCIDENT_SUMMARY_COLUMNS,
  type IncidentFilters,
  type IncidentOrder,
  type IncidentSummary,
  incidentSummary,
  matchesSearch,
  type PendingApprovalRow,
  pastUrgencyCursor,
  urgencyCursorOf,
} from './incident-query.js';

/**
 * The `incidents` table's records module (STYLE): its rows and moves here, the counts that
 * metrics and readbacks take in incident-counts.ts; no other file queries it.
 */

export type IncidentRow = Selectable<Tables['incidents']>;
/** What converging an alert reads of the incident it joins. */
export type IncidentHead = Pick<IncidentRow, 'id' | 'approval_id' | 'hit_count' | 'status'>;
/** CONTRACT, Incident lifecycle. */
export type IncidentStatus = 'open' | 'acknowledged' | 'resolved';

/**
 * One page of incidents as summaries, in one statement: `recent` is newest first (by row
 * number); `urgency` is severity (P0 first), then last seen (newest first), then id, paged by
 * a keyset cursor on those three, so a page never repeats or skips a row as others arrive.
 */
export async function listIncidents(
  db: Db,
  filters: IncidentFilters,
  page: { limit?: number; cursor?: string; order?: IncidentOrder },
): Promise<Page<IncidentSummary>> {
  const limit = page.limit ?? 50;
  let query = db
    .selectFrom('incidents')
    .select(['seq', ...INCIDENT_SUMMARY_COLUMNS])
    .limit(limit + 1);
  for (const column of ['namespace', 'alert_type', 'fingerprint'] as const) {
    const value = filters[column];
    if (value !== undefined) query = query.where(column, '=', value);
  }
  for (const column of ['status', 'severity', 'id'] as const) {
    const values = column === 'id' ? filters.ids : filters[column];
    if (values !== undefined) query = query.where(column, 'in', values);
  }
  if (filters.since !== undefined) query = query.where('last_seen', '>=', filters.since);
  if (filters.until !== undefined) query = query.where('last_seen', '<=', filters.until);
  const { q } = filters;
  if (q !== undefined && q !== '') query = query.where((eb) => matchesSearch(eb, q));

  if (page.order !== 'urgency') {
    const before = decodeSeqCursor(page.cursor);
    if (before !== undefined) query = query.where('seq', '<', before);
    const rows = await query.orderBy('seq', 'desc').execute();
    return pageOf(rows, limit, (row) => row.seq, incidentSummary);
  }
  const after = decodeUrgencyCursor(page.cursor);
  if (after) query = query.where((eb) => pastUrgencyCursor(eb, after));
  const rows = await query.orderBy('severity').orderBy('last_seen', 'desc').orderBy('id').execute();
  return pageOf(rows, limit, urgencyCursorOf, incidentSummary);
}

type IncidentHeadline = Pick<IncidentRow, 'alert_name' | 'namespace' | 'severity' | 'status'>;

/** The incidents of `ids` that exist, as an approval shows its incident; one statement. */
export async function incidentHeadlinesOf(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, IncidentHeadline>> {
  const headlines = new Map<string, IncidentHeadline>();
  if (ids.length === 0) return headlines;
  const rows = await db
    .selectFrom('incidents')
    .select(['id', 'alert_name', 'namespace', 'severity', 'status'])
    .where('id', 'in', ids)
    .execute();
  for (const { id, ...headline } of rows) headlines.set(id, headline);
  return headlines;
}

export function findIncident(db: Db | Tx, id: string): Promise<IncidentRow | undefined> {
  return db.selectFrom('incidents').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An incident's status and who resolved it, read inside a transaction (a decision's). */
export function incidentStatusOf(tx: Tx, id: string) {
  return tx
    .selectFrom('incidents')
    .select(['status', 'resolved_by'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** findIncident batched with the lookups made beside it (support/batched-lookup.ts). */
export const lookUpIncident = batchedLookup(async (db: Db, ids: string[]) => {
  const rows = await db.selectFrom('incidents').selectAll().where('id', 'in', ids).execute();
  return rows.map((row) => [row.id, row] as const);
});

const insertIncidentRows = insertBuiltOnce('incidents', INCIDENT_OPENING_COLUMNS);
export type NewIncident = Parameters<typeof insertIncidentRows>[1][number];

export async function insertIncidents(tx: Db | Tx, incidents: readonly NewIncident[]) {
  if (incidents.length > 0) await insertIncidentRows(tx, incidents);
}

/**
 * Per fingerprint, the newest incident an alert still joins (converge.ts's merge rule), in
 * one statement built once per count; a fingerprint with no such incident is absent.
 * `pending` is the approvals' subquery for a pending approval of that id (approvals own that
 * table: approval-records.ts's pendingApprovalRow); the caller passes it in.
 */
export async function openIncidentsOf(
  tx: Tx,
  fingerprints: readonly string[],
  firstSeenAfter: number,
  pending: PendingApprovalRow,
): Promise<Map<string, IncidentHead>> {
  const open = new Map<string, IncidentHead>();
  if (fingerprints.length === 0) return open;
  const { rows } = await openIncidentRows(tx, { fingerprints, after: firstSeenAfter, pending });
  for (const { fingerprint, ...head } of rows)
    if (!open.has(fingerprint)) open.set(fingerprint, head);
  return open;
}

const openIncidentRows = builtOnce(
  (
    db: Db,
    {
      fingerprints,
      after,
      pending,
    }: { fingerprints: readonly string[]; after: number; pending: PendingApprovalRow },
  ) =>
    db
      .selectFrom('incidents')
      .select(['id', 'approval_id', 'hit_count', 'status', 'fingerprint'])
      .where('fingerprint', 'in', fingerprints)
      .where((eb) =>
        eb.or([
          eb.exists(pending(db, eb.ref('incidents.approval_id'))),
          eb('first_seen', '>', after),
        ]),
      )
      .orderBy('seq', 'desc'),
  ({ fingerprints, after }) => [...fingerprints, 'pending', after],
  ({ fingerprints }) => fingerprints.length,
);

/** The head of an incident that must exist (a replayed signal's); throws when it does not. */
export function incidentHeadOf(tx: Tx, id: string): Promise<IncidentHead> {
  return tx
    .selectFrom('incidents')
    .select(['id', 'approval_id', 'hit_count', 'status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Incidents whose hit counts rise together, and by how much each. */
export type IncidentHits = ReadonlyArray<{ id: string; by: number }>;

/**
 * Raises the hit counts of a batch's incidents in one statement, however many fingerprints
 * the batch joined (an Alertmanager group of many alerts repeats them together): incident id
 * → its count after. Ids must be distinct: an `update … from` applies one row of several.
 * A resolved incident is not raised and is absent from the answer: its status is checked
 * once its row is locked (PostgreSQL checks the condition again on the row a concurrent
 * resolve committed), so a caller that read it unresolved learns that it no longer is.
 */
export async function addIncidentHits(
  tx: Tx,
  rises: IncidentHits,
  now: number,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const chunk of inChunks(rises)) {
    for (const row of (await raiseHitCounts(tx, { rises: chunk, now })).rows)
      counts.set(row.id, row.hit_count);
  }
  return counts;
}

// This module's updates (hit counts, moves, reopening) change counts, times, status and who
// moved it, never what an incident is about: an incident's follow-up hands the row it read
// on to the repair evaluation (repair-case.ts), which takes severity, type, labels and target
// from it. An update of those must end that reuse.

// `values` names its columns column1, column2 on both dialects; the cast types the count.
const raiseHitCounts = builtOnce(
  (db: Db, { rises, now }: { rises: IncidentHits; now: number }) =>
    db
      .updateTable('incidents')
      .set({ hit_count: sql`incidents.hit_count + v.column2`, last_seen: now })
      .from(
        sql<{ column1: string; column2: number }>`(values ${sql.join(
          rises.map(({ id, by }) => sql`(${id}, cast(${by} as integer))`),
        )})`.as('v'),
      )
      .whereRef('incidents.id', '=', 'v.column1')
      .where('incidents.status', '!=', 'resolved')
      .returning(['incidents.id', 'incidents.hit_count']),
  ({ rises, now }) => [now, ...rises.flatMap(({ id, by }) => [id, by]), 'resolved'],
  ({ rises }) => rises.length,
);

/** What an incident's move sets besides its status. */
export type IncidentMove = Partial<
  Pick<IncidentRow, 'acknowledged_by' | 'acknowledged_at' | 'resolved_by' | 'resolved_at'>
>;

/**
 * Compare-and-set of an incident's status (CONTRACT, Incident lifecycle): true when this caller
 * moved it, false when it was not in `from`, so a move happens once however many try it.
 * `silentSince`: only if no alert reached it since then (the timeout), checked on the row as
 * it is once locked, a hit count raised meanwhile included.
 */
export async function moveIncident(
  tx: Tx,
  id: string,
  from: readonly IncidentStatus[],
  to: IncidentStatus,
  fields: IncidentMove,
  silentSince?: number,
): Promise<boolean> {
  let move = tx
    .updateTable('incidents')
    .set({ status: to, ...fields })
    .where('id', '=', id)
    .where('status', 'in', from);
  if (silentSince !== undefined) move = move.where('last_seen', '<', silentSince);
  const moved = await move.executeTakeFirst();
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
