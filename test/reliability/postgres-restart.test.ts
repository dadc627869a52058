import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import {
  type PrivatePostgres,
  postgresBinDir,
  startPrivatePostgres,
} from '../helpers/private-services.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Finding: "A PostgreSQL restart kills every replica": an idle pooled connection closed by the
 * server was an unhandled 'error' event. On a private server (never the shared one): the
 * app survives its connections being terminated and the server restarting, and the next
 * request is served on a new connection.
 */
describe.skipIf(!postgresBinDir())('PostgreSQL connections closed by the server', () => {
  let server: PrivatePostgres;
  let test: TestApp;
  const uncaught: string[] = [];
  const record = (error: unknown) => uncaught.push(String(error));

  beforeAll(async () => {
    process.on('uncaughtException', record);
    server = await startPrivatePostgres();
    test = await buildTestApp({
      env: { DATABASE_URL: server.url, SIGNAL_CONSUMER: 'false' },
    });
  }, 60_000);

  afterAll(async () => {
    await test?.close();
    await server?.stop();
    process.off('uncaughtException', record);
  });

  const idleAppConnections = `SELECT pid FROM pg_stat_activity
    WHERE datname = 'app' AND state = 'idle' AND pid <> pg_backend_pid()`;

  it('keeps running when idle pooled connections are terminated, and reconnects', async () => {
    expect((await test.app.inject('/api/v1/readyz')).statusCode).toBe(200);
    await waitFor(
      async () => ((await server.query(idleAppConnections)).rowCount ? true : undefined),
      {
        what: 'an idle pooled connection',
      },
    );
    const terminated = await server.query(
      `SELECT pg_terminate_backend(pid) FROM (${idleAppConnections}) AS idle`,
    );
    expect(terminated.rowCount).toBeGreaterThan(0);
    // The closed connections' errors reach the pool as soon as the server's notice arrives.
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(uncaught).toEqual([]);
    const ready = await test.app.inject('/api/v1/readyz');
    expect(ready.statusCode).toBe(200);
    expect((await test.app.inject('/api/v1/incidents')).statusCode).toBe(200);
  });

  it('keeps running when a connection checked out for a transaction is terminated', async () => {
    const db = test.app.services.store.db;
    const inTransaction = `SELECT pid FROM pg_stat_activity
      WHERE datname = 'app' AND state = 'idle in transaction' AND pid <> pg_backend_pid()`;
    // A transaction that waits on something else between its queries (a lock, another
    // service) holds its connection outside the pool, where the pool's listener is not.
    const failed = db
      .transaction()
      .execute(async (tx) => {
        await sql`select 1`.execute(tx);
        await waitFor(
          async () => ((await server.query(inTransaction)).rowCount ? true : undefined),
          { what: 'the transaction idle on its connection' },
        );
        await server.query(`SELECT pg_terminate_backend(pid) FROM (${inTransaction}) AS busy`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await sql`select 1`.execute(tx);
      })
      .then(
        () => 'committed',
        (error: Error) => error.message,
      );
    expect(await failed).not.toBe('committed');
    expect(uncaught).toEqual([]);
    expect(test.app.services.store.isUnavailable(new Error(await failed))).toBe(true);
    expect((await test.app.inject('/api/v1/incidents')).statusCode).toBe(200);
  });

  it('reports the database down while the server is stopped, and serves again once it is back', async () => {
    await server.halt();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const down = await test.app.inject('/api/v1/readyz');
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({
      status: 'not_ready',
      failing: ['database'],
      checks: { database: { status: 'down' } },
    });
    // A request that needs the database says so, and when to come back.
    const refused = await test.app.inject('/api/v1/incidents');
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({
      detail: 'Database unavailable',
      code: 'database_unavailable',
    });
    expect(refused.headers['retry-after']).toBe('5');

    await server.start();
    await waitFor(
      async () => ((await test.app.inject('/api/v1/readyz')).statusCode === 200 ? true : undefined),
      { what: 'readiness after the restart' },
    );
    expect((await test.app.inject('/api/v1/incidents')).statusCode).toBe(200);
    expect(uncaught).toEqual([]);
  });
});
