import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection, type PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Db, Tx } from '../../ports/store.js';

/** The lock names of the transaction `withLock` is about to begin; taken once. */
interface PendingLocks {
  names: readonly string[];
  taken: boolean;
}

const pendingLocks = new AsyncLocalStorage<PendingLocks>();

/**
 * `begin` and the upsert of the transaction's lock rows as one simple-protocol query: one
 * round trip instead of two, and every round trip costs the service a socket write and a
 * wake-up (a converge batch had six). The names are quoted with pg's `escapeLiteral`; the
 * time is an integer. Sorted, so overlapping sets always lock in the same order.
 */
export function beginLockingText(names: readonly string[], now: number): string {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return 'begin';
  const touchedAt = Math.trunc(now);
  const rows = sorted.map((name) => `(${pg.escapeLiteral(name)}, ${touchedAt})`).join(', ');
  // ON CONFLICT DO UPDATE row-locks each mutex row until the transaction ends; a second
  // transaction on the same name blocks there, then (READ COMMITTED) sees the first's writes.
  return `begin; insert into "mutexes" ("name", "touched_at") values ${rows} on conflict ("name") do update set "touched_at" = excluded."touched_at"`;
}

/**
 * Lets the driver begin a `withLock` transaction with its locks taken in the same query.
 * If that query fails after `begin` ran (a lock wait cancelled), Kysely does not roll back a
 * transaction it thinks never began, so the connection would go back to the pool inside an
 * aborted transaction: it is rolled back here.
 */
export function withLockingBegin(dialect: PostgresDialect): PostgresDialect {
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    const begin = driver.beginTransaction.bind(driver);
    driver.beginTransaction = async (connection: DatabaseConnection, settings) => {
      const pending = pendingLocks.getStore();
      if (!pending || pending.taken) return begin(connection, settings);
      // A transaction begun inside the work, on another connection, takes no locks.
      pending.taken = true;
      try {
        await connection.executeQuery(
          CompiledQuery.raw(beginLockingText(pending.names, Date.now())),
        );
      } catch (error) {
        await connection.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
        throw error;
      }
    };
    return driver;
  };
  return dialect;
}

/** One transaction holding the named locks from its first statement (`withLockingBegin`). */
export function lockingTransaction<T>(
  db: Db,
  names: string | readonly string[],
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const pending = { names: typeof names === 'string' ? [names] : names, taken: false };
  return pendingLocks.run(pending, () =>
    db.transaction().execute((tx) => {
      // A dialect without withLockingBegin would run the work unlocked: refuse instead.
      if (!pending.taken) throw new Error('withLock: the transaction began without its locks');
      return work(tx);
    }),
  );
}
