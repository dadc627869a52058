import {
  type Expression,
  type ExpressionBuilder,
  type Selectable,
  type SelectQueryBuilder,
  sql,
} from 'kysely';
import { errors } from '../../errors.js';
import type { Db, Tables } from '../../ports/store.js';
import { decodeCursor } from '../../support/newest-first.js';

/**
 * How incidents are listed, apart from the query itself (incident-records.ts runs it): the
 * summary a list shows, the filters and orders, the urgency cursor and the search.
 */

type IncidentRow = Selectable<Tables['incidents']>;

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

/** Every column an incident is opened with; its lifecycle's columns start at their defaults. */
export const INCIDENT_OPENING_COLUMNS = [
  'id',
  'fingerprint',
  'namespace',
  'workload',
  'alert_type',
  'alert_type_source',
  'alert_name',
  'severity',
  'source',
  'target_resource',
  'message',
  'labels',
  'annotations',
  'status',
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
export interface UrgencyPosition {
  severity: string;
  lastSeen: number;
  id: string;
}

export function decodeUrgencyCursor(cursor: string | undefined): UrgencyPosition | undefined {
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
export function matchesSearch(eb: ExpressionBuilder<Tables, 'incidents'>, q: string) {
  const like = (column: string, text: string) =>
    sql<boolean>`lower(${sql.ref(column)}) like lower(${`%${escapeLike(text)}%`}) escape '\\'`;
  const labels = labelPattern(q);
  return eb.or([
    ...SEARCHED_COLUMNS.map((column) => like(column, q)),
    ...(labels === undefined ? [] : [like('labels', labels)]),
  ]);
}

/** The urgency cursor of a row: where the next page starts. */
export const urgencyCursorOf = (row: Pick<IncidentRow, 'severity' | 'last_seen' | 'id'>) =>
  JSON.stringify([row.severity, Number(row.last_seen), row.id]);

/**
 * Past (severity, last_seen, id) in the order severity asc, last_seen desc, id asc. The
 * directions differ, so no row comparison says it; the leading `severity >=` lets the
 * incidents_urgency index start at the cursor's severity instead of the first row.
 */
export function pastUrgencyCursor(
  eb: ExpressionBuilder<Tables, 'incidents'>,
  after: UrgencyPosition,
) {
  return eb.and([
    eb('severity', '>=', after.severity),
    eb.or([
      eb('severity', '>', after.severity),
      eb('last_seen', '<', after.lastSeen),
      eb.and([eb('last_seen', '=', after.lastSeen), eb('id', '>', after.id)]),
    ]),
  ]);
}

/** A subquery naming the pending approval of an id, from the approvals' records. */
export type PendingApprovalRow = (
  db: Db,
  approvalId: Expression<string | null>,
) => SelectQueryBuilder<Tables, 'approvals', { id: string }>;
