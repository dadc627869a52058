import crypto from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginLockingText } from '../../src/adapters/postgres/locking-transactions.js';
import { pruneLockRows } from '../../src/adapters/sql/sql-support.js';
import type { Db, Store, Tx } from '../../src/ports/store.js';
import { makeStore, storeKinds } from '../helpers/backends.js';

describe('the query that begins a locked transaction on PostgreSQL', () => {
  it('begins and upserts each lock row once, sorted, at a whole millisecond', () => {
    expect(beginLockingText(['b', 'a', 'b'], 1.9)).toBe(
      `begin; insert into "mutexes" ("name", "touched_at") values ('a', 1), ('b', 1) on conflict ("name") do update set "touched_at" = excluded."touched_at"`,
    );
    expect(beginLockingText(["it's", 'a\\b'], 2)).toContain(`values ( E'a\\\\b', 2), ('it''s', 2)`);
    expect(beginLockingText([], 1)).toBe('begin');
  });

  it('refuses a name with a NUL byte instead of sending a broken query', () => {
    expect(() => beginLockingText(['a\0b'], 1)).toThrow(
      'withLock: a lock name cannot contain a NUL byte',
    );
  });
});

/**
 * Holds `name` in a transaction until `release` is called; resolves once it is held. The
 * transaction notes `first in` and `first out` in `trace`.
 */
async function holdLock(store: Store, name: string, trace: string[] = []) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding!: () => void;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const done = store.withLock(name, async () => {
    trace.push('first in');
    holding();
    await gate;
    trace.push('first out');
  });
  // A lock that fails before the work starts rejects here instead of never being held.
  await Promise.race([held, done]);
  return { release, done };
}

describe.skipIf(!storeKinds().includes('postgres'))('lock rows on PostgreSQL', () => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await makeStore('postgres'));
  });

  afterEach(async () => {
    await cleanup();
  });

  const names = async () =>
    (await store.db.selectFrom('mutexes').select('name').orderBy('name').execute()).map(
      (row) => row.name,
    );

  it('prunes the rows untouched since the cutoff, in passes, and keeps the rest', async () => {
    await sql`insert into mutexes (name, touched_at)
      select 'old-' || n, 1000 from generate_series(1, 10050) as n`.execute(store.db);
    await store.withLock(['fingerprint:fresh'], async () => undefined);
    expect(await pruneLockRows(store.db, Date.now() - 60_000)).toBe(10_050);
    expect(await names()).toEqual(['fingerprint:fresh']);
  });

  it('keeps one transaction at a time on a name while its row is pruned', async () => {
    await store.withLock('fingerprint:k', async () => undefined); // the row exists, committed
    const order: string[] = [];
    const first = await holdLock(store, 'fingerprint:k', order);
    let pruned = false;
    const prune = pruneLockRows(store.db, Date.now() + 60_000).then((count) => {
      pruned = true;
      order.push('pruned');
      return count;
    });
    const second = store.withLock('fingerprint:k', async () => {
      order.push('second in');
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const whileHeld = { pruned, order: [...order] };
    first.release();
    expect(whileHeld).toEqual({ pruned: false, order: ['first in'] });
    await Promise.all([first.done, second]);
    expect(await prune).toBeGreaterThanOrEqual(1);
    expect(order.indexOf('first out')).toBeLessThan(order.indexOf('second in'));
    expect(order.indexOf('first out')).toBeLessThan(order.indexOf('pruned'));
    // The name locks as before once its row is gone.
    await store.withLock('fingerprint:k', async () => undefined);
    expect(await names()).toContain('fingerprint:k');
  });

  it('takes names with quotes, backslashes and any script as written', async () => {
    const odd = ["it's", 'back\\slash', 'ünïcødé ✓', "'); drop table mutexes; --"];
    await store.withLock(odd, async () => undefined);
    // Sorted here, not by the database's collation (which may ignore punctuation).
    expect((await names()).sort()).toEqual([...odd].sort());
  });

  it.each([
    ['transaction', (tx: Tx) => (tx as unknown as Db).transaction().execute(async () => undefined)],
    ['connection', (tx: Tx) => (tx as unknown as Db).connection().execute(async () => undefined)],
    ['startTransaction', (tx: Tx) => tx.startTransaction().execute()],
    [
      'a transaction of a derived instance',
      (tx: Tx) => (tx.withSchema('public') as unknown as Db).transaction().execute(async () => 1),
    ],
  ])(
    'refuses %s inside the locked transaction, and commits nothing of the work',
    async (_, nest) => {
      const written = `written-inside-${crypto.randomUUID()}`;
      await expect(
        store.withLock('fingerprint:inner', async (tx) => {
          expect(tx.isTransaction).toBe(true);
          await sql`insert into mutexes (name, touched_at) values (${written}, 1)`.execute(tx);
          await nest(tx);
        }),
      ).rejects.toThrow(/not supported/);
      // A nested commit on this connection would have committed the row: all was rolled back.
      expect(await names()).not.toContain(written);
    },
  );

  it('fails a query the work starts after its transaction has ended', async () => {
    let late!: () => Promise<unknown>;
    await store.withLock('fingerprint:late', async (tx) => {
      late = () => tx.selectFrom('mutexes').select('name').execute();
      expect(await late()).toEqual(expect.any(Array));
    });
    await expect(late()).rejects.toThrow('withLock: a query ran after its transaction ended');
  });

  it('rolls back a begin whose lock wait is cancelled, so its connection is clean again', async () => {
    // Unique, so a run beside this one on the same server cancels nothing of ours.
    const name = `fingerprint:cancel:${crypto.randomUUID()}`;
    const first = await holdLock(store, name);
    try {
      // Settled at once: the cancelled wait may fail while the cancelling query is awaited.
      const waiting = store.withLock(name, async () => 'ran').catch((error: Error) => error);
      let cancelled = 0;
      for (let attempt = 0; attempt < 100 && cancelled === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const { rows } = await sql<{ cancelled: boolean }>`
          select pg_cancel_backend(pid) as cancelled from pg_stat_activity
          where wait_event_type = 'Lock' and query like 'begin; insert into "mutexes"%'
            and strpos(query, ${name}) > 0`.execute(store.db);
        cancelled = rows.filter((row) => row.cancelled).length;
      }
      expect(cancelled).toBe(1);
      expect(String(await waiting)).toMatch(/cancel/);
    } finally {
      first.release();
      await first.done;
    }
    // Every pooled connection answers outside a transaction: none was left aborted.
    const states = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const { rows } = await sql<{ state: string }>`
          select case when now() = statement_timestamp() then 'outside' else 'inside' end as state`.execute(
          store.db,
        );
        return rows[0]?.state;
      }),
    );
    expect(new Set(states)).toEqual(new Set(['outside']));
  });

  it("refuses a NUL in a name as that transaction's error, and stays usable", async () => {
    await expect(store.withLock(['ok', 'a\0b'], async () => 'ran')).rejects.toThrow(/NUL byte/);
    expect(await store.withLock('ok', async () => 'ran')).toBe('ran');
  });

  it('excludes a replica that still takes its lock rows with a parameterized upsert', async () => {
    const name = 'fingerprint:old-replica';
    const oldReplica = () =>
      store.db.connection().execute(async (connection) => {
        await sql`begin`.execute(connection);
        try {
          await sql`set local lock_timeout = '100ms'`.execute(connection);
          await sql`insert into mutexes (name, touched_at) values (${name}, ${1})
            on conflict (name) do update set touched_at = excluded.touched_at`.execute(connection);
        } finally {
          await sql`rollback`.execute(connection);
        }
      });
    await store.withLock(name, async () => {
      await expect(oldReplica()).rejects.toMatchObject({ code: '55P03' });
    });
    await expect(oldReplica()).resolves.toBeUndefined();
  });
});
