import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

const ALERTS = '/api/v1/webhooks/alerts';
const FULL = {
  code: 'storage_full',
  detail: 'Database storage is full: nothing was recorded, retry once space is freed',
};
const TMPFS_BYTES = 6 * 1024 * 1024;
const BALLAST_BYTES = 512 * 1024;

/** A small tmpfs for the embedded database; undefined where mounting is not allowed. */
function mountSmallDisk(): string | undefined {
  const dir = tempDir('disk-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES}`, 'tmpfs', dir], {
      stdio: 'pipe',
    });
    return dir;
  } catch {
    return undefined;
  }
}

const alert = (i: number) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'disk-full',
  target_resource: `svc-${i}`,
  // Large enough that a few hundred alerts fill the disk.
  message: `${'Back-off restarting failed container. '.repeat(100)} (${i})`,
});

const disk = mountSmallDisk();
const required = process.env.REQUIRE_SERVICES === '1';

/**
 * The embedded database's disk fills up: a write that does not fit is refused with a 503
 * naming the cause (never a 500, never a half-written record), the file stays intact, and
 * writes are accepted again once space is freed, without a restart.
 */
describe.skipIf(!disk && !required)('the embedded database on a full disk', () => {
  let test: TestApp;
  let ballast: string;

  beforeAll(async () => {
    if (!disk) throw new Error('mounting a tmpfs failed (the test needs root)');
    ballast = path.join(disk, 'ballast');
    fs.writeFileSync(ballast, Buffer.alloc(BALLAST_BYTES, 1));
    test = await buildTestApp({ env: { DATA_DIR: disk, SIGNAL_CONSUMER: 'false' } });
  });

  afterAll(async () => {
    await test?.close();
    if (disk) execFileSync('umount', ['-l', disk]);
  });

  let accepted = 0;

  it('refuses the alert that does not fit with a 503 and Retry-After', async () => {
    let refused: Awaited<ReturnType<typeof postSigned>> | undefined;
    for (let i = 0; i < 5_000 && !refused; i += 1) {
      const response = await postSigned(test.app, ALERTS, alert(i));
      if (response.statusCode === 200) accepted += 1;
      else refused = response;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(refused?.statusCode).toBe(503);
    expect(refused?.json()).toEqual(FULL);
    expect(refused?.headers['retry-after']).toBe('30');
    // Still full: the next one is refused the same way.
    const again = await postSigned(test.app, ALERTS, alert(99_999));
    expect(again.statusCode).toBe(503);
  });

  it('keeps every accepted alert and an intact database file', async () => {
    const db = test.app.services.store.db;
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from incidents where namespace = 'disk-full'`.execute(db);
    expect(Number(rows[0]!.n)).toBe(accepted);
    const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
    expect(check.rows).toEqual([{ integrity_check: 'ok' }]);
  });

  it('accepts writes again once space is freed', async () => {
    fs.rmSync(ballast);
    const response = await postSigned(test.app, ALERTS, alert(100_000));
    expect(response.statusCode).toBe(200);
    expect((await test.app.inject('/api/v1/readyz')).statusCode).toBe(200);
  });
});
