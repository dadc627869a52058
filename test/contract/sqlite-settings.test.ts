import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Db, Store } from '../../src/ports/store.js';
import { tempDir } from '../helpers/backends.js';

async function pragma(db: Db, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db);
  return Object.values(rows[0] ?? {})[0];
}

/**
 * SQLite's temporary files that this process holds open (unlinked, so only /proc shows them).
 * Test files run in processes of their own (vitest's `forks` pool), so no other file's show.
 */
function openTemporaryFiles(): string[] {
  const dir = '/proc/self/fd';
  return fs
    .readdirSync(dir)
    .flatMap((fd) => {
      try {
        return [fs.readlinkSync(path.join(dir, fd))];
      } catch {
        return []; // closed since it was listed
      }
    })
    .filter((target) => target.includes('etilqs_'));
}

describe('the embedded store’s SQLite settings', () => {
  const stores: Store[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function openStore(): Promise<Store> {
    const dir = tempDir();
    dirs.push(dir);
    const store = await createSqliteStore(path.join(dir, 'app.db'));
    stores.push(store);
    return store;
  }

  it('writes ahead of the database, waits for other processes, and checkpoints at 1000 pages', async () => {
    const { db } = await openStore();
    expect(await pragma(db, 'journal_mode')).toBe('wal');
    expect(await pragma(db, 'busy_timeout')).toBe(10_000);
    expect(await pragma(db, 'wal_autocheckpoint')).toBe(1000);
  });

  it.runIf(process.platform === 'linux')(
    'keeps a transaction’s statement journal in memory, and other temporary files on disk',
    async () => {
      const { db } = await openStore();
      // About 120 pages of rows, committed, so that one statement then changes each of them.
      const value = 'x'.repeat(4000);
      await db
        .insertInto('settings')
        .values(Array.from({ length: 120 }, (_, i) => ({ key: `k-${i}`, value, updated_at: 0 })))
        .execute();
      const during = await db.transaction().execute(async (tx) => {
        // Its statement journal holds the 120 pages as they were: past the 64 KiB at which
        // SQLite moves a journal kept in memory to a temporary file.
        await tx.updateTable('settings').set({ updated_at: 1 }).execute();
        // Other text than the read below: SQLite fixes a pragma's answer when it compiles
        // it, and the store keeps compiled statements.
        return { files: openTemporaryFiles(), tempStore: await pragma(tx, 'TEMP_STORE') };
      });
      expect(during.files).toEqual([]);
      // The default is back from the BEGIN on: a sort inside a transaction may spill too.
      expect(during.tempStore).toBe(0);
      // Outside that moment the default stands: a large sort may still spill to disk.
      expect(await pragma(db, 'temp_store')).toBe(0);
    },
  );
});
