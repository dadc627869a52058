import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db, Tables } from '../../ports/store.js';
import { insertBuiltOnce } from '../../support/built-once.js';
import { groupCommit } from '../../support/group-commit.js';
import { inChunks } from '../../support/in-chunks.js';
import { listNewestFirst, type Page } from '../../support/newest-first.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import type { CanaryAuth, ExternalAlertEventFields } from './canary.js';

/** A payload's key, computed once per delivery for all its stages, and its JSON text. */
export interface EventPayload {
  digest: string;
  /** Asked for only when the payload's row is written: a repeat's digest is known already. */
  json(): string;
}

const sha256Hex = (data: string | Buffer) => crypto.createHash('sha256').update(data).digest('hex');

export function eventPayload(json: string): EventPayload {
  return { digest: sha256Hex(json), json: () => json };
}

/** A raw body that parsed as JSON (so valid UTF-8): hashed as received, decoded if stored. */
export function rawEventPayload(utf8: Buffer): EventPayload {
  return { digest: sha256Hex(utf8), json: () => utf8.toString('utf8') };
}

/**
 * A signed raw body, keyed by the SHA-256 of the HMAC-SHA256 its signature check already
 * computed over the same bytes: the body is hashed once instead of twice (about 20 µs for a
 * 5 KB issue on a core without SHA instructions), and the MAC's 64 characters once more. The
 * MAC itself is never stored: it is the delivery's valid signature, and a copy of the
 * database would let anyone send the delivery again. Under one secret, distinct bodies have
 * distinct MACs and so distinct keys; the prefix keeps these keys apart from SHA-256 ones.
 * A body stored before under its SHA-256, or under another secret, is stored once more under
 * the new key; each event keeps the key it was written with, so every event still reads its
 * payload. Such a key cannot be checked against its body without the secret.
 */
export function signedEventPayload(utf8: Buffer, bodyMac: string): EventPayload {
  return { digest: `mac-sha256:${sha256Hex(bodyMac)}`, json: () => utf8.toString('utf8') };
}

export interface RecordedEventExtras {
  auth?: CanaryAuth;
  approvalId?: string;
  /** The payload already serialized (the raw request body), to skip serializing it again. */
  payload?: EventPayload;
}

type EventRow = Parameters<typeof insertEvents>[1][number];
interface EventWrite {
  row: EventRow;
  payload: EventPayload;
}

/** Digests this process has seen committed; payload rows are never deleted. */
const KNOWN_DIGESTS_KEPT = 1000;

const insertPayloads = insertBuiltOnce('event_payloads', ['digest', 'body'], (insert) =>
  insert.onConflict((oc) => oc.column('digest').doNothing()),
);

const insertEvents = insertBuiltOnce('external_alert_events', [
  'id',
  'project',
  'provider',
  'stage',
  'issue_id',
  'title',
  'severity',
  'namespace',
  'target_resource',
  'fingerprint',
  'source_url',
  'labels',
  'annotations',
  'payload_digest',
  'operator_id',
  'auth_method',
  'approval_id',
  'created_at',
]);

// One batching writer per database: deliveries arriving together share one transaction.
const writers = new WeakMap<Db, (write: EventWrite) => Promise<void>>();

function writerFor(db: Db) {
  let writer = writers.get(db);
  if (!writer) {
    const known = new Set<string>();
    const batch = groupCommit<EventWrite>(async (writes) => {
      const payloads = new Map<string, EventPayload>();
      for (const { payload } of writes) {
        if (!known.has(payload.digest)) payloads.set(payload.digest, payload);
      }
      // Decoded before the transaction, not while it holds the write lock.
      const fresh = [...payloads.values()].map(({ digest, json }) => ({ digest, body: json() }));
      await db.transaction().execute(async (tx) => {
        for (const chunk of inChunks(fresh)) await insertPayloads(tx, chunk);
        for (const chunk of inChunks(writes.map((write) => write.row))) {
          await insertEvents(tx, chunk);
        }
      });
      for (const digest of payloads.keys()) {
        known.add(digest);
        if (known.size > KNOWN_DIGESTS_KEPT) known.delete(known.values().next().value as string);
      }
    });
    writer = (write) => batch.add(write);
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
  return stageRecorder(db, fields, extras)(fields.stage, now);
}

/**
 * Records stages of one delivery that differ only in their stage: the fields are serialized
 * once for all of them (a repeat inside the dedup window writes two).
 */
export function stageRecorder(
  db: Db,
  fields: ExternalAlertEventFields,
  extras: RecordedEventExtras = {},
): (stage: ExternalAlertEventFields['stage'], now: number) => Promise<string> {
  const payload = extras.payload ?? eventPayload(JSON.stringify(fields.payload ?? null));
  const labels = JSON.stringify(fields.labels);
  const annotations = JSON.stringify(fields.annotations);
  const write = writerFor(db);
  return async (stage, now) => {
    const id = timeOrderedId();
    await write({
      payload,
      row: {
        id,
        project: fields.project,
        provider: fields.provider,
        stage,
        issue_id: fields.issue_id,
        title: fields.title,
        severity: fields.severity,
        namespace: fields.namespace,
        target_resource: fields.target_resource,
        fingerprint: fields.fingerprint,
        source_url: fields.source_url,
        labels,
        annotations,
        payload_digest: payload.digest,
        operator_id: extras.auth?.operatorId ?? null,
        auth_method: extras.auth?.method ?? null,
        approval_id: extras.approvalId ?? null,
        created_at: now,
      },
    });
    return id;
  };
}

type EventRecord = Selectable<Tables['external_alert_events']>;

/**
 * One recorded stage as a list shows it: every field but the payload, which belongs to the
 * detail route (a tracker event's payload is kilobytes to a megabyte).
 */
export function externalEventSummary(row: EventRecord) {
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

export async function findExternalEvent(
  db: Db,
  id: string,
): Promise<StoredExternalEvent | undefined> {
  const row = await db
    .selectFrom('external_alert_events')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const payload = await db
    .selectFrom('event_payloads')
    .select('body')
    .where('digest', '=', row.payload_digest)
    .executeTakeFirst();
  return { event: externalEventSummary(row), payloadJson: payload?.body || 'null' };
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
    viewsOf: (rows) => rows.map(externalEventSummary),
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
