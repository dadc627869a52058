import { sql } from 'kysely';
import pg from 'pg';
import type { Db, Tx } from '../../ports/store.js';

/** What Kysely's Transaction refuses, and so must a transaction begun here. */
const REFUSED = new Set<PropertyKey>(['transaction', 'startTransaction', 'connection', 'destroy']);

/**
 * The connection's Kysely as the work's transaction: it runs every query on this one
 * connection, as a Transaction does, and like one it refuses to begin another transaction
 * (on this connection that would commit the locked one early) or to hand out connections.
 */
function asTransaction(connection: Db): Tx {
  return new Proxy(connection, {
    get(target, key) {
      if (key === 'isTransaction') return true;
      if (REFUSED.has(key)) {
        return () => {
          throw new Error(
            `withLock: calling ${String(key)} inside a locked transaction is not supported`,
          );
        };
      }
      const value = Reflect.get(target, key, target);
      // Kysely keeps its state in private fields: its methods must see the real object.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as Tx;
}

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

/**
 * One transaction holding the named locks from its first statement, on one pooled
 * connection. Begun, committed and rolled back here rather than by Kysely's transaction
 * builder, which has no way to send the locks with its `begin`. Any failure after the
 * first query was sent rolls back, so the connection never returns to the pool inside a
 * transaction (a lock wait cancelled after `begin` ran included).
 */
export async function lockingTransaction<T>(
  db: Db,
  names: string | readonly string[],
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  const begin = beginLockingText(typeof names === 'string' ? [names] : names, Date.now());
  return db.connection().execute(async (connection) => {
    try {
      await sql.raw(begin).execute(connection);
      const result = await work(asTransaction(connection));
      await sql.raw('commit').execute(connection);
      return result;
    } catch (error) {
      await sql
        .raw('rollback')
        .execute(connection)
        .catch(() => undefined);
      throw error;
    }
  });
}
