import crypto from 'node:crypto';
import type { Db } from '../../ports/store.js';
import { insertBuiltOnce } from '../../support/built-once.js';
import { groupCommit } from '../../support/group-commit.js';
import { inChunks } from '../../support/in-chunks.js';
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
type FieldsRow = Parameters<typeof insertFields>[1][number];
interface EventWrite {
  row: EventRow;
  fields: FieldsRow;
  payload: EventPayload;
}

/** Payload digests and field keys this process has seen committed; neither row is deleted. */
const KNOWN_KEYS_KEPT = 1000;

const insertPayloads = insertBuiltOnce('event_payloads', ['digest', 'body'], (insert) =>
  insert.onConflict((oc) => oc.column('digest').doNothing()),
);

/**
 * The columns of `external_event_fields` but its key, in the order the key serializes them
 * (the same as migration 0013's).
 */
export const SHARED_COLUMNS = [
  'project',
  'title',
  'severity',
  'namespace',
  'target_resource',
  'fingerprint',
  'source_url',
  'labels',
  'annotations',
] as const;

const insertFields = insertBuiltOnce(
  'external_event_fields',
  ['key', ...SHARED_COLUMNS],
  (insert) => insert.onConflict((oc) => oc.column('key').doNothing()),
);

const insertEvents = insertBuiltOnce('external_alert_events', [
  'id',
  'stage',
  'provider',
  'issue_id',
  'fields_key',
  'payload_digest',
  'operator_id',
  'auth_method',
  'approval_id',
  'created_at',
]);

/** Remembers up to KNOWN_KEYS_KEPT keys, forgetting the oldest first. */
function remember<K, V>(known: Map<K, V>, key: K, value: V): void {
  known.set(key, value);
  if (known.size > KNOWN_KEYS_KEPT) known.delete(known.keys().next().value as K);
}

/**
 * Longer texts are hashed each time instead of kept: labels may fill a 1 MiB body, and a
 * thousand such texts kept would hold a gigabyte.
 */
const KEYED_TEXT_KEPT_MAX = 8 * 1024;

const byKey =
  <T>(keyOf: (item: T) => string) =>
  (a: T, b: T) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0;

/**
 * The `external_alert_events` writes of one service, over its database: deliveries arriving
 * together share one transaction, and what it remembers (keys seen committed, the keys of
 * field texts it serialized) is bounded and goes with it.
 */
export interface ExternalEventRecords {
  /** Stores one stage of one delivery; resolves with the event id once it is written. */
  record(
    fields: ExternalAlertEventFields,
    now: number,
    extras?: RecordedEventExtras,
  ): Promise<string>;
  /**
   * Records stages of one delivery that differ only in their stage: the fields they share are
   * serialized and keyed once for all of them (a repeat inside the dedup window writes two).
   */
  stages(
    fields: ExternalAlertEventFields,
    extras?: RecordedEventExtras,
  ): (stage: ExternalAlertEventFields['stage'], now: number) => Promise<string>;
  /** Settles once every stage asked for so far is written. */
  close(): Promise<void>;
}

/**
 * `skipRows` is for BENCH_BOUND=tracker-stages only (bench/README.md, Upper bounds): each batch
 * ends before its transaction and writes no payload, fields or stage row, so the bench can
 * price them; everything before it runs, and the answers of a tick still leave together.
 */
export function createExternalEventRecords(
  { db }: { db: Db },
  { skipRows = false } = {},
): ExternalEventRecords {
  const knownPayloads = new Map<string, true>();
  const knownFields = new Map<string, true>();
  /**
   * The key of a set of shared fields is the SHA-256 hex of their JSON text. A repeated
   * delivery serializes the same text, so the hashes of the texts seen last are remembered.
   */
  const keysOfText = new Map<string, string>();
  function fieldsKey(fields: Omit<FieldsRow, 'key'>): string {
    const text = JSON.stringify(SHARED_COLUMNS.map((column) => fields[column]));
    let key = keysOfText.get(text);
    if (key === undefined) {
      key = sha256Hex(text);
      if (text.length <= KEYED_TEXT_KEPT_MAX) remember(keysOfText, text, key);
    }
    return key;
  }

  const batch = groupCommit<EventWrite>(async (writes) => {
    const payloads = new Map<string, EventPayload>();
    const fields = new Map<string, FieldsRow>();
    for (const write of writes) {
      const { digest } = write.payload;
      if (!knownPayloads.has(digest)) payloads.set(digest, write.payload);
      if (!knownFields.has(write.fields.key)) fields.set(write.fields.key, write.fields);
    }
    // Decoded before the transaction, not while it holds the write lock. Sorted by key:
    // replicas inserting the same new keys take their row locks in one order, never
    // waiting on each other crosswise (PostgreSQL would end one as a deadlock).
    const fresh = [...payloads.values()]
      .sort(byKey(({ digest }) => digest))
      .map(({ digest, json }) => ({ digest, body: json() }));
    const freshFields = [...fields.values()].sort(byKey(({ key }) => key));
    if (skipRows) return;
    await db.transaction().execute(async (tx) => {
      for (const chunk of inChunks(fresh)) await insertPayloads(tx, chunk);
      for (const chunk of inChunks(freshFields)) await insertFields(tx, chunk);
      for (const chunk of inChunks(writes.map((write) => write.row))) {
        await insertEvents(tx, chunk);
      }
    });
    for (const digest of payloads.keys()) remember(knownPayloads, digest, true);
    for (const key of fields.keys()) remember(knownFields, key, true);
  });

  function stages(
    fields: ExternalAlertEventFields,
    extras: RecordedEventExtras = {},
  ): (stage: ExternalAlertEventFields['stage'], now: number) => Promise<string> {
    const payload = extras.payload ?? eventPayload(JSON.stringify(fields.payload ?? null));
    const shared = {
      project: fields.project,
      title: fields.title,
      severity: fields.severity,
      namespace: fields.namespace,
      target_resource: fields.target_resource,
      fingerprint: fields.fingerprint,
      source_url: fields.source_url,
      labels: JSON.stringify(fields.labels),
      annotations: JSON.stringify(fields.annotations),
    };
    const sharedRow = { key: fieldsKey(shared), ...shared };
    return async (stage, now) => {
      const id = timeOrderedId();
      await batch.add({
        payload,
        fields: sharedRow,
        row: {
          id,
          stage,
          provider: fields.provider,
          issue_id: fields.issue_id,
          fields_key: sharedRow.key,
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

  return {
    record: (fields, now, extras = {}) => stages(fields, extras)(fields.stage, now),
    stages,
    close: () => batch.settled(),
  };
}
