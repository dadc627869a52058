import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/adapters/sql/sql-support.js';
import { makeStore, type StoreKind, storeKinds, type TestStore } from '../helpers/backends.js';

describe.each(storeKinds())('store port on %s', (kind: StoreKind) => {
  let current: TestStore | undefined;
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  const open = async () => {
    current = await makeStore(kind);
    return current.store;
  };

  it('names its dialect and answers ping', async () => {
    const store = await open();
    expect(store.dialect).toBe(kind);
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('runs migrations once: a second run changes nothing', async () => {
    const store = await open();
    await runMigrations(store.db, kind);
    const tables = await store.db.introspection.getTables();
    const names = tables.map((table) => table.name);
    expect(names).toEqual(
      expect.arrayContaining(['incidents', 'approvals', 'jobs', 'operation_log', 'once_keys']),
    );
  });

  it('keeps epoch milliseconds exact and JSON text as written', async () => {
    const store = await open();
    const now = Date.parse('2026-11-22T01:02:03.456Z');
    await store.db
      .insertInto('settings')
      .values({ key: 'k', value: '{"a":[1,"é"]}', updated_at: now })
      .execute();
    const row = await store.db
      .selectFrom('settings')
      .selectAll()
      .where('key', '=', 'k')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ key: 'k', value: '{"a":[1,"é"]}', updated_at: now });
    expect(typeof row.updated_at).toBe('number');
  });

  it('serializes transactions that take the same lock, and not different ones', async () => {
    const store = await open();
    const trace: string[] = [];
    const hold = (name: string, label: string) =>
      store.withLock(name, async () => {
        trace.push(`${label}:in`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        trace.push(`${label}:out`);
      });
    await Promise.all([hold('same', 'a'), hold('same', 'b')]);
    expect(
      [trace.slice(0, 2), trace.slice(2)].map((pair) => pair.map((step) => step.split(':')[1])),
    ).toEqual([
      ['in', 'out'],
      ['in', 'out'],
    ]);
  });

  it('takes several locks at once without deadlocking against the reverse order', async () => {
    const store = await open();
    const runs = Array.from({ length: 10 }, (_, n) =>
      store.withLock(n % 2 ? ['x', 'y'] : ['y', 'x'], async (tx) => {
        await sql`select 1`.execute(tx);
        return n;
      }),
    );
    expect((await Promise.all(runs)).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('rolls back everything when the work throws', async () => {
    const store = await open();
    await expect(
      store.withLock('rollback', async (tx) => {
        await tx
          .insertInto('settings')
          .values({ key: 'gone', value: 'x', updated_at: 1 })
          .execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const row = await store.db
      .selectFrom('settings')
      .select('key')
      .where('key', '=', 'gone')
      .executeTakeFirst();
    expect(row).toBeUndefined();
  });
});
