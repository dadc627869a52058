import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Store, Tables } from '../../ports/store.js';
import { lockedTransaction, runMigrations } from '../sql/sql-support.js';

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
    options: schema ? `-c search_path="${schema}"` : undefined,
  });
  // Without a listener, an idle connection closed by the server ("terminating connection
  // due to administrator command") is an unhandled 'error' event and ends the process.
  pool.on('error', (error) => options.onIdleConnectionError?.(error));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  await runMigrations(db, 'postgres', schema);

  return {
    dialect: 'postgres',
    db,
    // ON CONFLICT DO UPDATE row-locks the mutex row; a second transaction on the same name
    // blocks there until the first commits, then (READ COMMITTED) sees its writes.
    withLock: (name, work) => lockedTransaction(db, name, work),
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}
