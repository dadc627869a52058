import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Store } from '../../src/ports/store.js';
import { tempDir } from '../helpers/backends.js';

/** A small tmpfs to fill: mounting one takes root, as the full-disk chaos scenario does. */
function mountTmpfs(dir: string, mebibytes: number): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mebibytes}m`, 'tmpfs', dir]);
    return true;
  } catch {
    return false;
  }
}

const canMount = (() => {
  const probe = tempDir('tmpfs-probe-');
  const mounted = mountTmpfs(probe, 1);
  if (mounted) execFileSync('umount', ['-l', probe]);
  fs.rmSync(probe, { recursive: true, force: true });
  return mounted;
})();

describe.skipIf(!canMount)('SQLite on a disk that fills up and is freed', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('takes writes again once space is freed, however the WAL grew while full', async () => {
    const dir = tempDir('full-disk-');
    mountTmpfs(dir, 8);
    cleanups.push(() => {
      execFileSync('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const ballast = path.join(dir, 'ballast');
    fs.writeFileSync(ballast, Buffer.alloc(2 * 1024 * 1024, 1));
    const store: Store = await createSqliteStore(path.join(dir, 'app.db'));
    cleanups.push(() => store.close().catch(() => undefined));
    const value = 'x'.repeat(2400);
    let written = 0;
    const write = () =>
      store.db
        .insertInto('settings')
        .values({ key: `k-${written}`, value, updated_at: 0 })
        .execute()
        .then(() => {
          written += 1;
        });

    // Commits back to back until the disk refuses them: the worker's checkpoints alone never
    // catch up with such a writer, so without the writer's own the WAL takes the whole disk.
    let refused = 0;
    while (refused < 20) {
      await write().catch((error: unknown) => {
        expect(store.isStorageFull(error)).toBe(true);
        refused += 1;
      });
    }
    expect(written).toBeGreaterThan(100);

    fs.rmSync(ballast);
    // 300 more rows are about 1 MB of pages: they fit in the 2 MB freed, but not in a WAL
    // that must keep growing because no checkpoint can make room to start it again.
    let failures = 0;
    for (let i = 0; i < 300; i++) {
      await write().catch(() => {
        failures += 1;
      });
    }
    expect(failures, 'of 300 writes, refused after space was freed').toBe(0);
  });
});
