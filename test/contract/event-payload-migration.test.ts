import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import { migrationProvider } from '../../src/adapters/sql/migrations.js';
import { retryingScanRaces } from '../../src/adapters/sql/sql-support.js';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { ExternalAlertEventFields } from '../../src/features/errtracker/canary.js';
import {
  externalEventJson,
  findExternalEvent,
  listExternalEvents,
} from '../../src/features/errtracker/external-event-reads.js';
import {
  createExternalEventRecords,
  type ExternalEventRecords,
} from '../../src/features/errtracker/external-event-records.js';
import type { Db, Store } from '../../src/ports/store.js';
import { encodeCursor } from '../../src/support/newest-first.js';
import {
  dropSchema,
  postgresUrlWithFreshSchema,
  type StoreKind,
  storeKinds,
  tempDir,
} from '../helpers/backends.js';

/** One writer per database, as each service builds its own. */
const eventWriters = new Map<Db, ExternalEventRecords>();
function recordExternalEvent(
  db: Db,
  ...args: Parameters<ExternalEventRecords['record']>
): Promise<string> {
  let writer = eventWriters.get(db);
  if (!writer) {
    writer = createExternalEventRecords({ db });
    eventWriters.set(db, writer);
  }
  return writer.record(...args);
}

/** A database at the schema of one migration, and how to open it later as a full store. */
interface OldDatabase {
  // biome-ignore lint/suspicious/noExplicitAny: the typed schema is the latest one, not 0004's
  db: Kysely<any>;
  /**
   * Kysely looks for its migration tables in every schema unless told which: while another
   * test's schema holds them, it would skip creating this one's (as the store itself does).
   */
  migrationTableSchema?: string;
  openStore(): Promise<Store>;
  cleanup(): Promise<void>;
}

async function oldSqlite(): Promise<OldDatabase> {
  const dir = tempDir();
  const file = path.join(dir, 'app.db');
  return {
    db: new Kysely({ dialect: new SqliteDialect({ database: new Database(file) }) }),
    openStore: () => createSqliteStore(file),
    async cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function oldPostgres(): Promise<OldDatabase> {
  const { url, schema } = postgresUrlWithFreshSchema();
  const base = new URL(url);
  base.searchParams.delete('schema');
  const pool = new pg.Pool({
    connectionString: base.toString(),
    options: `-c search_path="${schema}"`,
  });
  const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
  await db.schema.createSchema(schema).execute();
  return {
    db,
    migrationTableSchema: schema,
    openStore: () => createPostgresStore({ url: base.toString(), schema }),
    cleanup: () => dropSchema(schema),
  };
}

const openOld = (kind: StoreKind) => (kind === 'sqlite' ? oldSqlite() : oldPostgres());

/**
 * Kysely's migrator over an old database, with the store's own list of migrations; like the
 * store's, it looks again when another test's schema changed during its scan.
 */
function migratorOf(old: OldDatabase, kind: StoreKind) {
  const migrator = new Migrator({
    db: old.db,
    provider: migrationProvider(kind),
    migrationTableSchema: old.migrationTableSchema,
  });
  return {
    migrateTo: (target: string) =>
      retryingScanRaces(() => migrator.migrateTo(target), old.migrationTableSchema),
  };
}

/** Each event as the detail route answers it, payload included. */
async function eventDetails(db: Db, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const stored = await findExternalEvent(db, id);
      if (!stored) throw new Error(`event ${id} not found`);
      return JSON.parse(externalEventJson(stored)) as { id: string; payload: unknown };
    }),
  );
}

const eventRow = (id: string, seq: number, payload: string) => ({
  seq,
  id,
  project: 'platform',
  provider: 'errtracker',
  stage: 'received',
  issue_id: 'old-1',
  title: 'TypeError',
  severity: 'error',
  namespace: 'errtracker',
  target_resource: 'api',
  fingerprint: 'errtracker-old-1',
  source_url: null,
  labels: '{}',
  annotations: '{}',
  payload,
  operator_id: null,
  auth_method: null,
  approval_id: null,
  created_at: 1_700_000_000_000,
});

describe.each(storeKinds())('migration 0005 on %s: payloads stored once', (kind: StoreKind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('moves the payloads of events recorded before it, one row per distinct payload', async () => {
    const old = await openOld(kind);
    cleanups.push(old.cleanup);
    const migrator = migratorOf(old, kind);
    const { error } = await migrator.migrateTo('0004_analysis_tasks');
    expect(error).toBeUndefined();
    const shared = JSON.stringify({ action: 'triggered', data: { issue: { id: 'old-1' } } });
    await old.db
      .insertInto('external_alert_events')
      .values([
        eventRow('ev-1', 1, shared),
        eventRow('ev-2', 2, shared),
        eventRow('ev-3', 3, '{"other":true}'),
      ])
      .execute();
    await old.db.destroy();

    const store = await old.openStore();
    cleanups.push(() => store.close());
    const rows = await store.db
      .selectFrom('external_alert_events')
      .selectAll()
      .orderBy('seq')
      .execute();
    const views = await eventDetails(
      store.db,
      rows.map((row) => row.id),
    );
    expect(views.map((view) => [view.id, view.payload])).toEqual([
      ['ev-1', JSON.parse(shared)],
      ['ev-2', JSON.parse(shared)],
      ['ev-3', { other: true }],
    ]);
    const payloads = await store.db.selectFrom('event_payloads').select('digest').execute();
    expect(payloads).toHaveLength(2);
    expect(rows.map((row) => Object.keys(row))).not.toContainEqual(
      expect.arrayContaining(['payload']),
    );
  });

  it('records new events against one shared payload row', async () => {
    const old = await openOld(kind);
    cleanups.push(old.cleanup);
    await old.db.destroy();
    const store = await old.openStore();
    cleanups.push(() => store.close());
    const fields: ExternalAlertEventFields = {
      project: 'platform',
      provider: 'errtracker',
      stage: 'received',
      issue_id: 'new-1',
      title: 't',
      severity: 'error',
      namespace: 'errtracker',
      target_resource: 'api',
      fingerprint: 'errtracker-new-1',
      source_url: null,
      labels: {},
      annotations: {},
      payload: { big: 'x'.repeat(6000) },
    };
    // Concurrent stages of many deliveries of one body: one group commit, one payload row.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        recordExternalEvent(store.db, { ...fields, stage: i % 2 ? 'deduplicated' : 'received' }, i),
      ),
    );
    await recordExternalEvent(store.db, fields, 99);
    const events = await store.db.selectFrom('external_alert_events').selectAll().execute();
    expect(events).toHaveLength(21);
    expect(await store.db.selectFrom('event_payloads').selectAll().execute()).toHaveLength(1);
    const views = await eventDetails(
      store.db,
      events.map((event) => event.id),
    );
    expect(
      views.every((view) => JSON.stringify(view.payload) === JSON.stringify(fields.payload)),
    ).toBe(true);
    expect(await store.db.selectFrom('external_event_fields').selectAll().execute()).toHaveLength(
      1,
    );
    // Fields too long for the process to keep their key are keyed again, the same way.
    const bulky = { ...fields, labels: { stack: 'y'.repeat(20_000) } };
    for (const at of [100, 101]) await recordExternalEvent(store.db, bulky, at);
    const bulkyEvents = await listExternalEvents(store.db, {}, { limit: 2 });
    expect(bulkyEvents.items.map((item) => item.labels)).toEqual([bulky.labels, bulky.labels]);
    expect(await store.db.selectFrom('external_event_fields').selectAll().execute()).toHaveLength(
      2,
    );
  });
});

/** A stage as migration 0012 left the table: every field on every row. */
const wideRow = (seq: number, id: string, overrides: Record<string, unknown> = {}) => ({
  ...eventRow(id, seq, ''),
  payload: undefined,
  payload_digest: 'digest-a',
  ...overrides,
});

describe.each(storeKinds())(
  'migration 0013 on %s: shared fields stored once',
  (kind: StoreKind) => {
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    it('keeps every stage as the read API showed it, its seq and its place in the pages', async () => {
      const old = await openOld(kind);
      cleanups.push(old.cleanup);
      const migrator = migratorOf(old, kind);
      expect((await migrator.migrateTo('0012_console_orders')).error).toBeUndefined();
      await old.db
        .insertInto('event_payloads')
        .values([
          { digest: 'digest-a', body: '{"a":1}' },
          { digest: 'digest-b', body: '{"b":2}' },
          { digest: 'digest-c', body: '{"canary":true}' },
        ])
        .execute();
      const rows = [
        wideRow(5, 'ev-received', { labels: '{"team":"api"}', source_url: 'https://t/1' }),
        wideRow(9, 'ev-dedup', {
          stage: 'deduplicated',
          labels: '{"team":"api"}',
          source_url: 'https://t/1',
        }),
        wideRow(10, 'ev-canary', {
          stage: 'upstream_canary',
          issue_id: 'platform-canary-1',
          namespace: 'platform-prod',
          annotations: '{"telegram":"not sent"}',
          payload_digest: 'digest-c',
          operator_id: 'alice',
          auth_method: 'operator_key',
          created_at: 1_700_000_000_500,
        }),
        // Another delivery of the issue: its own payload, the issue's fields.
        wideRow(40, 'ev-linked', {
          stage: 'approval_linked',
          labels: '{"team":"api"}',
          source_url: 'https://t/1',
          payload_digest: 'digest-b',
          approval_id: 'appr-1',
        }),
      ];
      await old.db
        .insertInto('external_alert_events')
        .values(rows.map(({ payload: _payload, ...row }) => row))
        .execute();
      await old.db.destroy();

      const store = await old.openStore();
      cleanups.push(() => store.close());
      const page = await listExternalEvents(store.db, {}, { limit: 10 });
      const expected = [...rows].reverse().map(({ seq: _seq, payload: _p, ...row }) => ({
        ...row,
        labels: JSON.parse(row.labels),
        annotations: JSON.parse(row.annotations),
        created_at: new Date(row.created_at).toISOString(),
      }));
      expect(
        page.items.map(({ payload_digest: _d, ...item }: Record<string, unknown>) => item),
      ).toEqual(expected.map(({ payload_digest: _d, ...item }) => item));
      expect(
        (await eventDetails(store.db, ['ev-dedup', 'ev-canary', 'ev-linked'])).map(
          (e) => e.payload,
        ),
      ).toEqual([{ a: 1 }, { canary: true }, { b: 2 }]);
      // received, deduplicated and approval_linked share their fields; the canary has its own.
      expect(await store.db.selectFrom('external_event_fields').selectAll().execute()).toHaveLength(
        2,
      );
      const seqs = await store.db
        .selectFrom('external_alert_events')
        .select(['id', 'seq'])
        .orderBy('seq')
        .execute();
      expect(seqs.map(({ seq }) => seq)).toEqual([5, 9, 10, 40]);
      // A cursor handed out before the move still pages on from its row.
      const after = await listExternalEvents(store.db, {}, { limit: 1, cursor: encodeCursor(10) });
      expect(after.items.map((item) => item.id)).toEqual(['ev-dedup']);
      expect(
        (await listExternalEvents(store.db, { stage: 'deduplicated' }, {})).items.map((i) => i.id),
      ).toEqual(['ev-dedup']);

      // New stages number on from the last, and the same fields recorded now share the migrated
      // row: the migration keys them as recording does.
      const fields: ExternalAlertEventFields = {
        project: 'platform',
        provider: 'errtracker',
        stage: 'received',
        issue_id: 'old-1',
        title: 'TypeError',
        severity: 'error',
        namespace: 'errtracker',
        target_resource: 'api',
        fingerprint: 'errtracker-old-1',
        source_url: 'https://t/1',
        labels: { team: 'api' },
        annotations: {},
        payload: null,
      };
      const payload = { digest: 'digest-new', json: () => '{"new":3}' };
      const id = await recordExternalEvent(store.db, fields, 1_700_000_001_000, { payload });
      expect((await eventDetails(store.db, [id]))[0]?.payload).toEqual({ new: 3 });
      const added = await store.db
        .selectFrom('external_alert_events')
        .select('seq')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(added.seq).toBeGreaterThan(40);
      expect(await store.db.selectFrom('external_event_fields').selectAll().execute()).toHaveLength(
        2,
      );
    });

    it.runIf(kind === 'sqlite')(
      'starts after a move that was committed but not recorded (SQLite records it after)',
      async () => {
        const old = await openOld(kind);
        cleanups.push(old.cleanup);
        const migrator = migratorOf(old, kind);
        expect((await migrator.migrateTo('0012_console_orders')).error).toBeUndefined();
        await old.db
          .insertInto('external_alert_events')
          .values((({ payload: _payload, ...row }) => row)(wideRow(7, 'ev-kept')))
          .execute();
        expect((await migrator.migrateTo('0013_external_event_fields')).error).toBeUndefined();
        // As if the process had died between the move's commit and its record.
        await old.db
          .deleteFrom('kysely_migration')
          .where('name', '=', '0013_external_event_fields')
          .execute();
        await old.db.destroy();

        const store = await old.openStore();
        cleanups.push(() => store.close());
        const page = await listExternalEvents(store.db, {}, {});
        expect(page.items.map((item) => item.id)).toEqual(['ev-kept']);
      },
    );

    it('moves more stages than one pass copies, sharing fields across passes', async () => {
      const old = await openOld(kind);
      cleanups.push(old.cleanup);
      const migrator = migratorOf(old, kind);
      expect((await migrator.migrateTo('0012_console_orders')).error).toBeUndefined();
      // Two sets of fields, alternating, over three passes of 500.
      const rows = Array.from({ length: 1203 }, (_, n) =>
        wideRow(n * 2 + 1, `ev-${n}`, { labels: `{"half":"${n % 2}"}` }),
      );
      for (let at = 0; at < rows.length; at += 500) {
        await old.db
          .insertInto('external_alert_events')
          .values(rows.slice(at, at + 500).map(({ payload: _payload, ...row }) => row))
          .execute();
      }
      await old.db.destroy();

      const store = await old.openStore();
      cleanups.push(() => store.close());
      const { db } = store;
      const moved = await db
        .selectFrom('external_alert_events')
        .select(['seq', 'id', 'fields_key'])
        .orderBy('seq')
        .execute();
      expect(moved.map(({ seq, id }) => [seq, id])).toEqual(rows.map(({ seq, id }) => [seq, id]));
      expect(new Set(moved.map(({ fields_key }) => fields_key)).size).toBe(2);
      expect(await db.selectFrom('external_event_fields').selectAll().execute()).toHaveLength(2);
      const last = await listExternalEvents(db, { issue_id: 'old-1' }, { limit: 1 });
      expect(last.items[0]).toMatchObject({ id: 'ev-1202', labels: { half: '0' } });
      // Its indexes are back, and ids stay unique.
      const indexes =
        kind === 'sqlite'
          ? sql<{ name: string }>`select name from sqlite_master
              where type = 'index' and tbl_name = 'external_alert_events'`
          : sql<{ name: string }>`select indexname as name from pg_indexes
              where tablename = 'external_alert_events' and schemaname = current_schema()`;
      const names = (await indexes.execute(db)).rows.map(({ name }) => name);
      expect(names).toEqual(
        expect.arrayContaining(['external_alert_events_stage', 'external_alert_events_issue']),
      );
      const first = await db
        .selectFrom('external_alert_events')
        .selectAll()
        .executeTakeFirstOrThrow();
      const { seq: _seq, ...duplicate } = first;
      await expect(
        db.insertInto('external_alert_events').values(duplicate).execute(),
      ).rejects.toThrow();
    });
  },
);
