import type { Selectable } from 'kysely';
import type { Db, Tables } from '../../ports/store.js';
import { inChunks } from '../../support/in-chunks.js';
import { listNewestFirst, type Page } from '../../support/newest-first.js';
import { SHARED_COLUMNS } from './external-event-records.js';

// What the read API and the readbacks read of the recorded stages; external-event-records.ts
// writes them.

type EventRecord = Selectable<Tables['external_alert_events']>;
type FieldsRecord = Omit<Selectable<Tables['external_event_fields']>, 'key'>;

/**
 * One recorded stage as a list shows it: every field but the payload, which belongs to the
 * detail route (a tracker event's payload is kilobytes to a megabyte).
 */
function externalEventSummary(row: EventRecord, fields: FieldsRecord) {
  return {
    id: row.id,
    project: fields.project,
    provider: row.provider,
    stage: row.stage,
    issue_id: row.issue_id,
    title: fields.title,
    severity: fields.severity,
    namespace: fields.namespace,
    target_resource: fields.target_resource,
    fingerprint: fields.fingerprint,
    source_url: fields.source_url,
    labels: JSON.parse(fields.labels) as Record<string, string>,
    annotations: JSON.parse(fields.annotations) as Record<string, string>,
    operator_id: row.operator_id,
    auth_method: row.auth_method,
    approval_id: row.approval_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export type ExternalEventSummary = ReturnType<typeof externalEventSummary>;

/** One recorded stage with its payload's JSON text exactly as stored. */
export interface StoredExternalEvent {
  event: ExternalEventSummary;
  payloadJson: string;
}

const SHOWN_FIELDS = SHARED_COLUMNS.map((column) => `f.${column}` as const);

export async function findExternalEvent(
  db: Db,
  id: string,
): Promise<StoredExternalEvent | undefined> {
  const row = await db
    .selectFrom('external_alert_events as e')
    .leftJoin('external_event_fields as f', 'f.key', 'e.fields_key')
    .leftJoin('event_payloads as p', 'p.digest', 'e.payload_digest')
    .selectAll('e')
    .select([...SHOWN_FIELDS, 'f.key', 'p.body'])
    .where('e.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.key === null) throw fieldsMissing(row);
  const fields = row as typeof row & FieldsRecord;
  return { event: externalEventSummary(row, fields), payloadJson: row.body || 'null' };
}

/**
 * A stage's fields are written in its own transaction and never deleted: missing means the
 * database was changed by hand, and the stage is not shown as if it had none.
 */
const fieldsMissing = (row: EventRecord) =>
  new Error(`external event ${row.id}: its fields ${row.fields_key} are missing`);

/** Each page's rows with their shared fields, read in one statement. */
async function summariesOf(db: Db, rows: EventRecord[]): Promise<ExternalEventSummary[]> {
  const keys = [...new Set(rows.map((row) => row.fields_key))];
  const found = new Map<string, FieldsRecord>();
  for (const chunk of inChunks(keys)) {
    const fields = await db
      .selectFrom('external_event_fields as f')
      .select(['f.key', ...SHOWN_FIELDS])
      .where('f.key', 'in', chunk)
      .execute();
    for (const { key, ...shown } of fields) found.set(key, shown);
  }
  return rows.map((row) => {
    const fields = found.get(row.fields_key);
    if (!fields) throw fieldsMissing(row);
    return externalEventSummary(row, fields);
  });
}

/**
 * The event as one JSON text, the stored payload spliced in unparsed. The payload was JSON
 * when stored (the raw body that parsed, or our own serialization), and parsing it again to
 * re-serialize could fail on anything JSON.stringify cannot nest that deep (a 10,000-deep
 * array overflows the stack), so stored input would break reading.
 */
export function externalEventJson({ event, payloadJson }: StoredExternalEvent): string {
  const fields = JSON.stringify(event);
  return `${fields.slice(0, -1)},"payload":${payloadJson}}`;
}

export interface ExternalEventFilters {
  stage?: string;
  provider?: string;
  issue_id?: string;
}

/** One page of recorded stages, newest first, each without its payload. */
export function listExternalEvents(
  db: Db,
  filters: ExternalEventFilters,
  page: { limit?: number; cursor?: string },
): Promise<Page<ExternalEventSummary>> {
  const { stage, provider, issue_id } = filters;
  return listNewestFirst(db, 'external_alert_events', { stage, provider, issue_id }, page, {
    viewsOf: (rows) => summariesOf(db, rows),
  });
}

/** Stages recorded at or after `since`. */
export async function countExternalEventsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('external_alert_events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
