import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { startWalCheckpointer } from '../../src/adapters/sqlite/wal-checkpointer.js';
import { tempDir } from '../helpers/backends.js';

describe('SQLite WAL checkpoints on a worker thread', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database while open, and leaves an empty WAL on close', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'app.db');
    const store = await createSqliteStore(file);
    const before = fs.statSync(file).size;
    const value = 'x'.repeat(4000);
    // About 600 pages: short of the 1000 at which SQLite's own checkpoint would copy them, so
    // only the worker moves them into the database while the store is open.
    for (let batch = 0; batch < 6; batch++) {
      await store.db
        .insertInto('settings')
        .values(
          Array.from({ length: 100 }, (_, i) => ({
            key: `k-${batch}-${i}`,
            value,
            updated_at: 0,
          })),
        )
        .execute();
    }
    const deadline = Date.now() + 5000;
    while (fs.statSync(file).size < before + 2_000_000 && Date.now() < deadline) {
      await sleep(50);
    }
    expect(fs.statSync(file).size).toBeGreaterThan(before + 2_000_000);
    await store.close();
    expect(fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0).toBe(0);

    const reopened = await createSqliteStore(file);
    const count = await reopened.db
      .selectFrom('settings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(600);
    await reopened.close();
  });

  it('keeps the WAL near 1000 pages while commits never pause', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'app.db');
    const store = await createSqliteStore(file);
    const value = 'x'.repeat(3000);
    let largest = 0;
    // About 48 MB of WAL frames in commits that follow each other with no pause: the worker's
    // checkpoints alone always end behind the newest one, so the WAL never starts again.
    for (let i = 0; i < 3000; i++) {
      await store.db
        .insertInto('settings')
        .values({ key: `k-${i}`, value, updated_at: 0 })
        .execute();
      if (i % 50 === 0) largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
    }
    largest = Math.max(largest, fs.statSync(`${file}-wal`).size);
    await store.close();
    // 1000 pages of 4 KB (4.1 MB with frame headers), more when the commit that crosses the
    // line meets the worker mid-checkpoint and leaves it to the next: up to 5.9 MB seen.
    expect(largest).toBeLessThan(16_000_000);
  });

  it('reports a checkpointer that cannot work', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let checkpointer: ReturnType<typeof startWalCheckpointer> | undefined;
    const failure = new Promise<unknown>((resolve) => {
      checkpointer = startWalCheckpointer(path.join(dir, 'missing', 'app.db'), resolve);
    });
    await expect(failure).resolves.toBeInstanceOf(Error);
    // Closing after the worker is gone must not wait for an exit that already happened.
    await sleep(200);
    await expect(checkpointer!.close()).resolves.toBeUndefined();
  });

  it('goes quiet while nothing is written, and the first write wakes it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'app.db');
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.pragma('wal_autocheckpoint = 0');
    writer.exec('create table t (v text)');
    // Every 50 ms, and every 10 s once a look finds nothing new.
    const checkpointer = startWalCheckpointer(file, () => undefined, 50, 10_000);
    try {
      const quietBy = Date.now() + 5000;
      while (!checkpointer.quiet && Date.now() < quietBy) await sleep(20);
      // Raised for a moment during every look: quiet is what lasts past the 50 ms pace.
      await sleep(200);
      expect(checkpointer.quiet).toBe(true);
      const sizeAfterWrite = () => {
        const insert = writer.prepare('insert into t (v) values (?)');
        writer.transaction(() => {
          for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000));
        })();
        return fs.statSync(file).size;
      };
      // Not told: the pages stay in the WAL past the 50 ms pace.
      const quiet = sizeAfterWrite();
      await sleep(400);
      expect(fs.statSync(file).size).toBe(quiet);
      // Told: checkpointed at the usual pace again.
      const woken = sizeAfterWrite();
      checkpointer.written();
      expect(checkpointer.quiet).toBe(false);
      const deadline = Date.now() + 3000;
      while (fs.statSync(file).size <= woken + 1_000_000 && Date.now() < deadline) await sleep(20);
      expect(fs.statSync(file).size).toBeGreaterThan(woken + 1_000_000);
    } finally {
      await checkpointer.close();
      writer.close();
    }
  });
});
