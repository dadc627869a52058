import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Store, Tables } from '../../ports/store.js';
import { errorCode, pruneLockRows, runMigrations } from '../sql/sql-support.js';
import { guardAgainstHang } from './hang-guard.js';
import { lockingTransaction } from './locking-transactions.js';
import { createPgWakeups } from './pg-wakeups.js';

// int8 columns hold epoch milliseconds, far inside Number's exact range.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export interface PostgresStoreOptions {
  url: string;
  /** Every table lives in this schema (created if missing); isolates tenants and test runs. */
  schema?: string;
  poolSize?: number;
  /**
   * Told about errors of idle pooled connections (a server restart or
   * `pg_terminate_backend`); the pool drops such a connection and opens a new one on the
   * next query.
   */
  onIdleConnectionError?: (error: Error) => void;
}

/** Lock rows untouched this long are deleted, looked for this often. */
const LOCK_ROWS_KEPT_MS = 60 * 60_000;
const PRUNE_LOCK_ROWS_EVERY_MS = 60 * 60_000;

/** What pg-pool's Error says when no connection could be had in time. */
const POOL_CHECKOUT_TIMEOUT = 'timeout exceeded when trying to connect';

/** Socket errors while connecting or connected. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * The server is gone or not serving: a socket error, SQLSTATE class 08 (connection exception)
 * or 57P01–57P03 (shut down by an administrator, crash shutdown, cannot connect now), or pg's
 * own "Connection terminated" and "not queryable", which carry no code.
 */
function isConnectionFailure(error: unknown): boolean {
  const code = errorCode(error) ?? '';
  if (NETWORK_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code)) return true;
  if (!(error instanceof Error)) return false;
  return (
    error.message.startsWith('Connection terminated') ||
    error.message.includes('encountered a connection error and is not queryable') ||
    // pg-pool's checkout timeout: every pooled connection stayed busy, or the server did not
    // accept a new one, for connectionTimeoutMillis. A 503 to retry, never a 500.
    error.message === POOL_CHECKOUT_TIMEOUT
  );
}

export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const schema = options.schema;
  if (schema) {
    const admin = new pg.Client({ connectionString: options.url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    // A server that accepts the connection but never answers (starting, overloaded) must
    // fail the request, not hold it: fail fast, recover alone.
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    options: schema ? `-c search_path="${schema}"` : undefined,
  });
  // Without a listener, an idle connection closed by the server ("terminating connection
  // due to administrator command") is an unhandled 'error' event and ends the process.
  pool.on('error', (error) => options.onIdleConnectionError?.(error));
  // The pool listens only to idle connections. One checked out for a transaction that is
  // waiting between its queries gets the same error with no listener at all; its next query
  // fails ("not queryable"), which the caller sees, and the pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  // A server that accepts connections but never answers fails requests within 2 s.
  const guard = guardAgainstHang(pool, options.url);
  const dialect = new PostgresDialect({ pool: guard.pool });
  const db = new Kysely<Tables>({ dialect });
  await runMigrations(db, 'postgres', schema);
  const wakeups = createPgWakeups({ url: options.url, schema }, (error) =>
    options.onIdleConnectionError?.(error),
  );

  // Housekeeping only: a failed pass leaves rows for the next one.
  const pruning = setInterval(() => {
    pruneLockRows(db, Date.now() - LOCK_ROWS_KEPT_MS).catch(() => undefined);
  }, PRUNE_LOCK_ROWS_EVERY_MS);
  pruning.unref();

  return {
    dialect: 'postgres',
    db,
    withLock: (name, work) => lockingTransaction(db, dialect, name, work),
    async ping() {
      await sql`select 1`.execute(db);
    },
    // SQLSTATE 53100 disk_full (class 53, insufficient resources).
    isStorageFull: (error) => errorCode(error) === '53100',
    isUnavailable: isConnectionFailure,
    wakeups,
    async close() {
      clearInterval(pruning);
      await guard.close();
      await wakeups.close();
      await db.destroy();
    },
  };
}
