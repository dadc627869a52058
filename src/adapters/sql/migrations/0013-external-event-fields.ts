import crypto from 'node:crypto';
import { type Migration, sql } from 'kysely';
import { type AnyDb, type Dialect, rowNumber, serial, time } from './migration-kit.js';

/** The columns a delivery's stages share, in the order their key serializes them. */
const SHARED = [
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

type SharedFields = Record<(typeof SHARED)[number], string | null>;
type OldEvent = SharedFields & {
  seq: number;
  id: string;
  stage: string;
  provider: string;
  issue_id: string;
  payload_digest: string;
  operator_id: string | null;
  auth_method: string | null;
  approval_id: string | null;
  created_at: number;
};

const COPIED_PER_PASS = 500;

/** Only the shared columns, whatever else the row holds. */
function pick(row: SharedFields): SharedFields {
  return Object.fromEntries(SHARED.map((column) => [column, row[column]])) as SharedFields;
}

/**
 * The key as `external-event-records.ts` builds it when recording. A migration keeps its own
 * copy: should the two ever differ, a set of fields is only stored once more under the other
 * key, and every event still reads the fields it was written with.
 */
function fieldsKey(fields: SharedFields): string {
  const text = JSON.stringify(SHARED.map((column) => fields[column]));
  return crypto.createHash('sha256').update(text).digest('hex');
}

// A tracker repeat records two stages, received and deduplicated, whose eighteen columns
// differed only in id, stage and time: about 1 KB a row for the tracker's example issue,
// and inserting the pair cost SQLite twice what the narrow rows cost. The fields an issue's
// deliveries repeat (its title, labels, annotations, …) move to a table of their own, stored
// once per distinct set. Each stage keeps its id, stage, the two columns the read API
// filters on, its payload's key (each delivery of an issue has its own payload), who
// authenticated it and its approval. Rows keep their `seq`, so cursors handed out before
// still page on.
export function migration0013ExternalEventFields(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      if (dialect === 'postgres') {
        // Replicas of the version before may still be writing stages during a rolling
        // upgrade. Without this lock, a stage committed behind the copy's last read would be
        // dropped with the old table; with it, their writes wait and then fail, answering
        // the tracker 500, and no stage that was answered for is lost.
        await sql`lock table external_alert_events in exclusive mode`.execute(db);
        await moveSharedFields(db);
        return;
      }
      // Kysely runs SQLite's migrations outside a transaction, and records them only after:
      // the move is one transaction, and a move committed but not recorded (a crash in
      // between) is not made twice.
      const moved = await sql`select 1 from pragma_table_info('external_alert_events')
        where name = 'fields_key'`.execute(db);
      if (moved.rows.length === 0) await db.transaction().execute((tx) => moveSharedFields(tx));
    },
  };

  async function moveSharedFields(db: AnyDb) {
    await db.schema
      .createTable('external_event_fields')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('namespace', 'text', (c) => c.notNull())
      .addColumn('target_resource', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('source_url', 'text')
      .addColumn('labels', 'text', (c) => c.notNull())
      .addColumn('annotations', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('external_alert_stages')
      .addColumn('seq', serial(dialect), rowNumber(dialect))
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('issue_id', 'text', (c) => c.notNull())
      .addColumn('fields_key', 'text', (c) => c.notNull())
      .addColumn('payload_digest', 'text', (c) => c.notNull())
      .addColumn('operator_id', 'text')
      .addColumn('auth_method', 'text')
      .addColumn('approval_id', 'text')
      .addColumn('created_at', time, (c) => c.notNull())
      .execute();
    let after = 0;
    for (;;) {
      const rows = (await db
        .selectFrom('external_alert_events')
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(COPIED_PER_PASS)
        .execute()) as OldEvent[];
      if (rows.length === 0) break;
      const fields = new Map<string, SharedFields & { key: string }>();
      const stages = rows.map((row) => {
        const key = fieldsKey(row);
        fields.set(key, { key, ...pick(row) });
        return {
          seq: row.seq,
          id: row.id,
          stage: row.stage,
          provider: row.provider,
          issue_id: row.issue_id,
          fields_key: key,
          payload_digest: row.payload_digest,
          operator_id: row.operator_id,
          auth_method: row.auth_method,
          approval_id: row.approval_id,
          created_at: row.created_at,
        };
      });
      await db
        .insertInto('external_event_fields')
        .values([...fields.values()])
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
      await db.insertInto('external_alert_stages').values(stages).execute();
      after = rows[rows.length - 1]!.seq;
    }
    await db.schema.dropTable('external_alert_events').execute();
    await db.schema.alterTable('external_alert_stages').renameTo('external_alert_events').execute();
    if (dialect === 'postgres') {
      // Rows copied with their own seq left the new sequence at its start.
      await sql`select setval(pg_get_serial_sequence('external_alert_events', 'seq'),
        coalesce((select max(seq) from external_alert_events), 0) + 1, false)`.execute(db);
    }
    await db.schema
      .createIndex('external_alert_events_stage')
      .on('external_alert_events')
      .columns(['stage', 'seq'])
      .execute();
    await db.schema
      .createIndex('external_alert_events_issue')
      .on('external_alert_events')
      .columns(['issue_id', 'seq'])
      .execute();
  }
}
