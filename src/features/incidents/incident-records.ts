import { type ExpressionBuilder, type Insertable, type Selectable, sql } from 'kysely';
import { errors } from '../../errors.js';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { decodeCursor, decodeSeqCursor, type Page, pageOf } from '../../support/newest-first.js';
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

/** CONTRACT, Operator console: the orders `GET /incidents` lists in. */
export const INCIDENT_ORDERS = ['recent', 'urgency'] as const;
export type IncidentOrder = (typeof INCIDENT_ORDERS)[number];

export interface IncidentFilters {
  status?: readonly string[];
  severity?: readonly string[];
  namespace?: string;
  alert_type?: string;
  fingerprint?: string;
  /** Search text: a substring, in any case, of the name, namespace, workload, ids or labels. */
  q?: string;
  /** `last_seen` at or after, epoch ms. */
  since?: number;
  /** `last_seen` at or before, epoch ms. */
  until?: number;
  ids?: readonly string[];
}

/** Where an urgency page ended: the last row's sort key. */
interface UrgencyPosition {
  severity: string;
  lastSeen: number;
  id: string;
}

function decodeUrgencyCursor(cursor: string | undefined): UrgencyPosition | undefined {
  const position = decodeCursor(cursor);
  if (position === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(position);
  } catch {
    throw errors.badCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    typeof parsed[0] !== 'string' ||
    !Number.isSafeInteger(parsed[1]) ||
    typeof parsed[2] !== 'string'
  ) {
    throw errors.badCursor();
  }
  return { severity: parsed[0], lastSeen: parsed[1], id: parsed[2] };
}

/** `%`, `_` and the escape character itself match literally after this (`escape '\\'`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

const SEARCHED_COLUMNS = ['alert_name', 'namespace', 'workload', 'id', 'fingerprint'] as const;

/** Text as it appears inside a JSON string: a quote or a backslash escaped. */
const inJson = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * What `q` looks for in the labels' JSON text (`{"team":"payments",…}`), or undefined when
 * it cannot be a label. `team=pay` is a key ending in `team` whose value starts with `pay`
 * (`team":"pay`). Other text is escaped as JSON escapes it, so it can meet the structure only
 * where JSON's own punctuation stands alone: text of nothing but `{`, `}`, `:` and `,` would
 * match every incident's labels, and is not looked for there.
 */
function labelPattern(q: string): string | undefined {
  const equals = q.indexOf('=');
  if (equals !== -1) return `${inJson(q.slice(0, equals))}":"${inJson(q.slice(equals + 1))}`;
  return /^[{}:,]*$/.test(q) ? undefined : inJson(q);
}

/**
 * `q` as a substring of the searched columns or of a label (`labelPattern`). Both sides are
 * lowered by the database: ASCII case is ignored on SQLite and PostgreSQL alike (PostgreSQL
 * also folds other letters), and text in its exact case always matches.
 */
function matchesSearch(eb: ExpressionBuilder<Tables, 'incidents'>, q: string) {
  const like = (column: string, text: string) =>
    sql<boolean>`lower(${sql.ref(column)}) like lower(${`%${escapeLike(text)}%`}) escape '\\'`;
  const labels = labelPattern(q);
  return eb.or([
    ...SEARCHED_COLUMNS.map((column) => like(column, q)),
    ...(labels === undefined ? [] : [like('labels', labels)]),
  ]);
}

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
  if (after) {
    // Past (severity, last_seen, id) in the order severity asc, last_seen desc, id asc. The
    // directions differ, so no row comparison says it; the leading `severity >=` lets the
    // incidents_urgency index start at the cursor's severity instead of the first row.
    query = query
      .where('severity', '>=', after.severity)
      .where((eb) =>
        eb.or([
          eb('severity', '>', after.severity),
          eb('last_seen', '<', after.lastSeen),
          eb.and([eb('last_seen', '=', after.lastSeen), eb('id', '>', after.id)]),
        ]),
      );
  }
  const rows = await query.orderBy('severity').orderBy('last_seen', 'desc').orderBy('id').execute();
  return pageOf(
    rows,
    limit,
    (row) => JSON.stringify([row.severity, Number(row.last_seen), row.id]),
    incidentSummary,
  );
}

/** The incidents of `ids` that exist, as an approval shows its incident; one statement. */
export async function incidentHeadlinesOf(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, Pick<IncidentRow, 'alert_name' | 'namespace' | 'severity' | 'status'>>> {
  const headlines = new Map<
    string,
    Pick<IncidentRow, 'alert_name' | 'namespace' | 'severity' | 'status'>
  >();
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
