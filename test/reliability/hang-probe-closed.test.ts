import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PROBE_APPLICATION_NAME } from '../../src/adapters/postgres/hang-guard.js';
import { makeStore, storeKinds, type TestStore } from '../helpers/backends.js';

const onPostgres = storeKinds().includes('postgres');

/**
 * CONTRACT, Under races, crashes and abuse: only a PostgreSQL that does not answer fails
 * requests as hung. The guard's own probe connection closed by the server (a restart,
 * `pg_terminate_backend`, an idle timeout) says nothing of the server.
 */
describe.runIf(onPostgres)('the hang guard after its probe connection was closed', () => {
  let opened: TestStore | undefined;
  afterAll(async () => {
    await opened?.cleanup();
  });

  it('takes a slow query on a server that answers as slow, not hung', async () => {
    opened = await makeStore('postgres');
    const { db } = opened.store;
    // Slower than the guard's suspicion: the server is probed, and the probe kept.
    await sql`select pg_sleep(0.8)`.execute(db);
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      const closed = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [PROBE_APPLICATION_NAME],
      );
      expect(closed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await expect(sql`select pg_sleep(0.8)`.execute(db)).resolves.toBeDefined();
    await expect(sql`select 1 as one`.execute(db)).resolves.toBeDefined();
  });
});
