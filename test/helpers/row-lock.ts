import pg from 'pg';
import { waitFor } from './wait-for.js';

export interface HeldRow {
  /**
   * Resolves once a session waits behind this lock, directly or queued behind another
   * waiter, running a statement whose text includes `statement`.
   */
  waiter(statement: string, what: string): Promise<void>;
  /** Ends the holding transaction: the waiters go on, the first in line first. */
  release(): Promise<void>;
}

/**
 * Holds one row's lock (`select … for update` in an open transaction) from a connection of
 * its own, so a race test decides the order in which the service's transactions reach the
 * row: they queue behind it and take it in the order they came once it is released.
 */
export async function holdRowLock(
  databaseUrl: string,
  table: string,
  id: string,
): Promise<HeldRow> {
  const schema = new URL(databaseUrl).searchParams.get('schema');
  const base = new URL(databaseUrl);
  base.searchParams.delete('schema');
  const holder = new pg.Client({ connectionString: base.toString() });
  // Watches from outside the holding transaction: inside one, pg_stat_activity keeps the
  // snapshot its first read took.
  const observer = new pg.Client({ connectionString: base.toString() });
  await holder.connect();
  await observer.connect();
  await holder.query('begin');
  const qualified = schema ? `"${schema}"."${table}"` : `"${table}"`;
  await holder.query(`select 1 from ${qualified} where id = $1 for update`, [id]);
  const { rows } = await holder.query('select pg_backend_pid() as pid');
  const holderPid: number = rows[0].pid;
  let released = false;
  return {
    async waiter(statement, what) {
      await waitFor(
        async () => {
          // Sessions blocked by the holder, or by one blocked by it (a queue on the row).
          const blocked = await observer.query(
            `select pid, pg_blocking_pids(pid) as by, query from pg_stat_activity
              where cardinality(pg_blocking_pids(pid)) > 0`,
          );
          const rows = blocked.rows as Array<{ pid: number; by: number[]; query: string }>;
          const behind = new Set<number>([holderPid]);
          for (let grew = true; grew; ) {
            grew = false;
            for (const row of rows) {
              if (!behind.has(row.pid) && row.by.some((pid) => behind.has(pid))) {
                behind.add(row.pid);
                grew = true;
              }
            }
          }
          const found = rows.some((row) => behind.has(row.pid) && row.query.includes(statement));
          return found ? true : undefined;
        },
        { what, timeoutMs: 15_000 },
      );
    },
    async release() {
      if (released) return;
      released = true;
      await holder.query('rollback');
      await holder.end();
      await observer.end();
    },
  };
}
