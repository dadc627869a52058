import { type Dialect, type Driver, sql, Transaction } from 'kysely';
import pg from 'pg';
import type { Db, Tables, Tx } from '../../ports/store.js';

/**
 * `begin` and the upsert of the transaction's lock rows as one simple-protocol query: one
 * round trip instead of two, and every round trip costs the service a socket write and a
 * wake-up (a converge batch had six). The rows are the ones parameterized upserts took
 * before, so replicas of either kind exclude each other. Names are quoted by pg's
 * `escapeLiteral`; the time is an integer. Sorted, so overlapping sets always lock in the
 * same order.
 */
export function beginLockingText(names: readonly string[], now: number): string {
  const sorted = [...new Set(names)].sort();
  if (sorted.length === 0) return 'begin';
  // A NUL would end the query text early: the server would fail the whole protocol
  // message (class 08), which reads as a dead connection, not as one bad name.
  const withNul = sorted.find((name) => name.includes('\0'));
  if (withNul !== undefined) throw new Error('withLock: a lock name cannot contain a NUL byte');
  const touchedAt = Math.trunc(now);
  const rows = sorted.map((name) => `(${pg.escapeLiteral(name)}, ${touchedAt})`).join(', ');
  // ON CONFLICT DO UPDATE row-locks each mutex row until the transaction ends; a second
  // transaction on the same name blocks there, then (READ COMMITTED) sees the first's writes.
  return `begin; insert into "mutexes" ("name", "touched_at") values ${rows} on conflict ("name") do update set "touched_at" = excluded."touched_at"`;
}

const refuse = (what: string) => () =>
  Promise.reject(new Error(`withLock: ${what} inside a locked transaction is not supported`));

/** The work's transaction never begins, ends or takes a connection of its own. */
const REFUSING_DRIVER: Driver = {
  init: async () => undefined,
  acquireConnection: refuse('taking a connection'),
  beginTransaction: refuse('beginning a transaction'),
  commitTransaction: refuse('committing'),
  rollbackTransaction: refuse('rolling back'),
  releaseConnection: async () => undefined,
  destroy: refuse('destroying the database'),
};

/**
 * One transaction holding the named locks from its first statement, on one pooled
 * connection. Begun, committed and rolled back here rather than by Kysely's transaction
 * builder, which has no way to send the locks with its `begin`. The work gets a Kysely
 * `Transaction` on that connection, which refuses to begin another transaction or take
 * a connection as Kysely's own does, and whose queries fail when started after the
 * transaction ended (they would otherwise land in the next borrower's transaction).
 * Any failure after the first query was sent rolls back, so the connection never returns
 * to the pool inside a transaction (a lock wait cancelled after `begin` ran included).
 */
export async function lockingTransaction<T>(
  db: Db,
  dialect: Dialect,
  names: string | readonly string[],
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const begin = beginLockingText(typeof names === 'string' ? [names] : names, Date.now());
  return db.connection().execute(async (connection) => {
    let open = true;
    const ended = () =>
      Promise.reject(new Error('withLock: a query ran after its transaction ended'));
    const onConnection = connection.getExecutor();
    // Checked when a query asks for the connection and again when it gets it: a query
    // queued behind the work's last one must not run after the commit.
    const executor = onConnection.withConnectionProvider({
      provideConnection: (consumer) =>
        open
          ? onConnection.provideConnection((held) => (open ? consumer(held) : ended()))
          : ended(),
    });
    const tx = new Transaction<Tables>({
      config: { dialect },
      dialect,
      driver: REFUSING_DRIVER,
      executor,
    });
    try {
      await sql.raw(begin).execute(connection);
      const result = await work(tx);
      open = false;
      await sql.raw('commit').execute(connection);
      return result;
    } catch (error) {
      open = false;
      await sql
        .raw('rollback')
        .execute(connection)
        .catch(() => undefined);
      throw error;
    }
  });
}
