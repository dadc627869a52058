import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { tempDir } from '../helpers/backends.js';

/**
 * 8 MiB freed is more than a WAL kept near 1000 pages holds (4–6 MB), so a checkpoint can
 * make room again; 800 rows after it are more than a WAL that only grows can take (without
 * the writer's own checkpoint, 300 of them were refused in each of four runs).
 */
const TMPFS_MIB = 16;
const BALLAST_MIB = 8;
const WRITES_AFTER = 800;

/** A tmpfs to fill; undefined where mounting is not allowed (it takes root). */
function mountSmallDisk(): string | undefined {
  const dir = tempDir('wal-full-disk-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_MIB}m`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
    return dir;
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

const disk = mountSmallDisk();
const required = process.env.REQUIRE_SERVICES === '1';

describe.skipIf(!disk && !required)('SQLite on a disk that fills up and is freed', () => {
  afterAll(() => {
    if (!disk) return;
    try {
      execFileSync('umount', ['-l', disk], { stdio: 'pipe' });
    } finally {
      fs.rmSync(disk, { recursive: true, force: true });
    }
  });

  it('takes writes again once space is freed, however the WAL grew while full', async () => {
    if (!disk) throw new Error('mounting a tmpfs failed (the test needs root)');
    const ballast = path.join(disk, 'ballast');
    fs.writeFileSync(ballast, Buffer.alloc(BALLAST_MIB * 1024 * 1024, 1));
    const store = await createSqliteStore(path.join(disk, 'app.db'));
    try {
      const value = 'x'.repeat(2400);
      let written = 0;
      const write = async () => {
        await store.db
          .insertInto('settings')
          .values({ key: `k-${written}`, value, updated_at: 0 })
          .execute();
        written += 1;
      };

      // Commits back to back until the disk refuses them: the worker's checkpoints alone
      // never catch up with such a writer, and without the writer's own the WAL takes the
      // whole disk. Bounded, in case the disk never fills.
      let refused = 0;
      for (let attempt = 0; refused < 20 && attempt < 20_000; attempt++) {
        await write().catch((error: unknown) => {
          if (!store.isStorageFull(error)) throw error;
          refused += 1;
        });
      }
      expect(refused, 'writes refused on the full disk').toBe(20);

      fs.rmSync(ballast);
      let failed = 0;
      let firstFailure: unknown;
      for (let i = 0; i < WRITES_AFTER; i++) {
        await write().catch((error: unknown) => {
          failed += 1;
          firstFailure ??= error;
        });
      }
      expect(failed, `writes refused after space was freed (first: ${String(firstFailure)})`).toBe(
        0,
      );
    } finally {
      await store.close().catch(() => undefined);
    }
  });
});
