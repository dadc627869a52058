import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Store } from '../../src/ports/store.js';
import { tempDir } from '../helpers/backends.js';

/**
 * The embedded store's transactions take SQLite's write lock when they begin, before they
 * read: no snapshot that a writer in another process (`npm run consumer`) could make stale,
 * and no lock upgrade to fail on half-way.
 */
describe('SQLite transactions', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function storeAndNeighbour(): Promise<{ store: Store; other: Database.Database }> {
    const dir = tempDir();
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'app.db');
    const store = await createSqliteStore(file);
    cleanups.push(() => store.close());
    // Another process's connection on the same file, which does not wait for the lock.
    const other = new Database(file, { timeout: 0 });
    cleanups.push(() => {
      other.close();
    });
    return { store, other };
  }

  /** Whether the other connection could take the write lock at this moment. */
  function otherCanWrite(other: Database.Database): boolean {
    try {
      other.exec('begin immediate');
      other.exec('rollback');
      return true;
    } catch (error) {
      expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
      return false;
    }
  }

  it('hold the write lock from their first statement, a read included', async () => {
    const { store, other } = await storeAndNeighbour();
    expect(otherCanWrite(other)).toBe(true);
    const during = await store.db.transaction().execute(async (tx) => {
      await tx.selectFrom('settings').select('key').execute();
      return otherCanWrite(other);
    });
    expect(during).toBe(false);
    expect(otherCanWrite(other)).toBe(true);
  });

  it('withLock holds the write lock for any names, and writes no lock row', async () => {
    const { store, other } = await storeAndNeighbour();
    const during = await store.withLock(['alert:a', 'alert:b'], async () => otherCanWrite(other));
    expect(during).toBe(false);
    expect(otherCanWrite(other)).toBe(true);
    expect(await store.db.selectFrom('mutexes').selectAll().execute()).toEqual([]);
  });

  it('roll back what a failed transaction wrote, and release the lock', async () => {
    const { store, other } = await storeAndNeighbour();
    const failing = store.withLock('settings', async (tx) => {
      await tx.insertInto('settings').values({ key: 'k', value: 'v', updated_at: 0 }).execute();
      throw new Error('fails after writing (test)');
    });
    await expect(failing).rejects.toThrow('fails after writing (test)');
    expect(await store.db.selectFrom('settings').selectAll().execute()).toEqual([]);
    expect(otherCanWrite(other)).toBe(true);
  });
});
