import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pruneLockRows } from '../../src/adapters/sql/sql-support.js';
import type { Store } from '../../src/ports/store.js';
import { makeStore, storeKinds } from '../helpers/backends.js';

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
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const first = store.withLock('fingerprint:k', async () => {
      order.push('first in');
      holding();
      await gate;
      order.push('first out');
    });
    await held;
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
    open();
    expect(whileHeld).toEqual({ pruned: false, order: ['first in'] });
    await Promise.all([first, second]);
    expect(await prune).toBeGreaterThanOrEqual(1);
    expect(order.indexOf('first out')).toBeLessThan(order.indexOf('second in'));
    expect(order.indexOf('first out')).toBeLessThan(order.indexOf('pruned'));
    // The name locks as before once its row is gone.
    await store.withLock('fingerprint:k', async () => undefined);
    expect(await names()).toContain('fingerprint:k');
  });
});
