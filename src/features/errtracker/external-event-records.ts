import crypto from 'node:crypto';
import type { Insertable, Selectable } from 'kysely';
import type { Db, Tables } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
import type { CanaryAuth, ExternalAlertEventFields } from './canary.js';

export interface RecordedEventExtras {
  auth?: CanaryAuth;
  approvalId?: string;
  /** The payload already serialized (the raw request body), to skip serializing it again. */
  payloadJson?: string;
}

type EventRow = Insertable<Tables['external_alert_events']>;

// One batching writer per database: deliveries arriving together share one insert.
const writers = new WeakMap<Db, (row: EventRow) => Promise<void>>();

function writerFor(db: Db) {
  let writer = writers.get(db);
  if (!writer) {
    const batch = groupCommit<EventRow>(async (rows) => {
      await db.insertInto('external_alert_events').values(rows).execute();
    });
    writer = (row) => batch.add(row);
    writers.set(db, writer);
  }
  return writer;
}

/** Stores one stage of one delivery; resolves with the event id once it is written. */
export async function recordExternalEvent(
  db: Db,
  fields: ExternalAlertEventFields,
  now: number,
  extras: RecordedEventExtras = {},
): Promise<string> {
  const id = crypto.randomUUID();
  await writerFor(db)({
    id,
    project: fields.project,
    provider: fields.provider,
    stage: fields.stage,
    issue_id: fields.issue_id,
    title: fields.title,
    severity: fields.severity,
    namespace: fields.namespace,
    target_resource: fields.target_resource,
    fingerprint: fields.fingerprint,
    source_url: fields.source_url,
    labels: JSON.stringify(fields.labels),
    annotations: JSON.stringify(fields.annotations),
    payload: extras.payloadJson ?? JSON.stringify(fields.payload ?? null),
    operator_id: extras.auth?.operatorId ?? null,
    auth_method: extras.auth?.method ?? null,
    approval_id: extras.approvalId ?? null,
    created_at: now,
  });
  return id;
}

export function externalEventView(row: Selectable<Tables['external_alert_events']>) {
  return {
    id: row.id,
    project: row.project,
    provider: row.provider,
    stage: row.stage,
    issue_id: row.issue_id,
    title: row.title,
    severity: row.severity,
    namespace: row.namespace,
    target_resource: row.target_resource,
    fingerprint: row.fingerprint,
    source_url: row.source_url,
    labels: JSON.parse(row.labels) as Record<string, string>,
    annotations: JSON.parse(row.annotations) as Record<string, string>,
    payload: JSON.parse(row.payload) as unknown,
    operator_id: row.operator_id,
    auth_method: row.auth_method,
    approval_id: row.approval_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}
