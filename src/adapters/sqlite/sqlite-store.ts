import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, sql } from 'kysely';
import type { Store, Tables } from '../../ports/store.js';
import { errorCode, runMigrations } from '../sql/sql-support.js';
import { withStatementCache } from './statement-cache.js';
import { startWalCheckpointer } from './wal-checkpointer.js';

/**
 * Three changes to how Kysely's driver runs a transaction on this connection.
 *
 * Every transaction begins IMMEDIATE: SQLite takes its write lock before anything is read,
 * so there is no stale snapshot and no lock upgrade to fail on (SQLITE_BUSY mid-way), and
 * other processes on the file wait at the start. That lock is the whole database's, so it
 * stands for every name `withLock` is given.
 *
 * Its statement journals stay in memory. A statement inside a transaction journals the
 * pages it may have to undo, and past 64 KiB SQLite spills that journal to a temporary
 * file, two writes a page: a batch of new incidents did, every time. SQLite decides where
 * at BEGIN, from `temp_store`, so the setting is MEMORY for the BEGIN only. Everywhere else
 * it stays the default, files, so a large sort (a `group by` over every incident) still
 * spills to disk rather than holding every row in memory.
 *
 * On some errors (a full disk, an I/O error) SQLite rolls the transaction back itself; the
 * ROLLBACK Kysely then sends fails with "no transaction is active" and would replace the
 * error that says what happened. It is skipped when there is nothing left to roll back.
 */
function withWriterTransactions(dialect: SqliteDialect, connection: Database.Database) {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    driver.beginTransaction = async (db) => {
      // `exec`, not a prepared statement: SQLite applies this pragma when it compiles it.
      connection.exec('pragma temp_store = MEMORY');
      try {
        await db.executeQuery(BEGIN_IMMEDIATE);
      } finally {
        tempFilesOnDisk(connection);
      }
    };
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (db) => {
      if (connection.inTransaction) await rollback(db);
    };
    return driver;
  };
  return dialect;
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/**
 * Back to the default after a BEGIN. Should that fail, the transaction it began is rolled
 * back here: Kysely rolls back only a transaction whose begin succeeded. SQLite refuses the
 * switch inside a transaction while its TEMP database is open, since switching closes it;
 * the service never opens it (no `temp.` names, no `create temp`).
 */
function tempFilesOnDisk(connection: Database.Database): void {
  try {
    connection.exec('pragma temp_store = DEFAULT');
  } catch (error) {
    if (connection.inTransaction) connection.exec('rollback');
    throw error;
  }
}

/**
 * Embedded store: one better-sqlite3 connection in WAL mode, checkpointed from a worker
 * thread. Kysely's driver serializes its use inside this process; busy_timeout makes other
 * processes on the file wait.
 */
export async function createSqliteStore(
  file: string,
  options: { onCheckpointerFailure?: (error: unknown) => void } = {},
): Promise<Store> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const connection = new Database(file);
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('foreign_keys = ON');
  // SQLite's own checkpoint (the commit that finds 1000 pages in the WAL) stays on beside
  // the worker's: see wal-checkpointer.ts for why the WAL needs it.
  connection.pragma('wal_autocheckpoint = 1000');
  const checkpointer =
    file === ':memory:' ? undefined : startWalCheckpointer(file, options.onCheckpointerFailure);
  const db = new Kysely<Tables>({
    dialect: withWriterTransactions(
      new SqliteDialect({
        database: withStatementCache(connection, () => checkpointer?.written()),
      }),
      connection,
    ),
  });
  try {
    await runMigrations(db, 'sqlite');
  } catch (error) {
    await checkpointer?.close();
    throw error;
  }

  return {
    dialect: 'sqlite',
    db,
    // Transactions begin IMMEDIATE (above): SQLite's one write lock holds every name.
    withLock: (_names, work) => db.transaction().execute(work),
    async ping() {
      await sql`select 1`.execute(db);
    },
    // better-sqlite3's SqliteError carries SQLite's extended result code.
    isStorageFull: (error) => errorCode(error) === 'SQLITE_FULL',
    // Another process held the write lock past busy_timeout.
    isUnavailable: (error) => errorCode(error) === 'SQLITE_BUSY',
    async close() {
      await db.destroy();
      await checkpointer?.close();
    },
  };
}
