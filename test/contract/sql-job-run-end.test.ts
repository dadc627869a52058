import { describe, expect, it } from 'vitest';
import { databaseFailed, recordRunEnd } from '../../src/adapters/sql/sql-job-failures.js';
import type { Store } from '../../src/ports/store.js';

/** Only what the two functions ask of a store: how it names a full or unreachable database. */
const store = {
  isStorageFull: (error: unknown) => (error as { code?: string })?.code === 'SQLITE_FULL',
  isUnavailable: (error: unknown) => (error as { code?: string })?.code === 'SQLITE_BUSY',
} as unknown as Store;

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('a run whose end the database fails to record', () => {
  it("tells the database failing from a job failing, through an error's causes", () => {
    expect(databaseFailed(store, full())).toBe(true);
    expect(databaseFailed(store, new Error('wrapped', { cause: full() }))).toBe(true);
    const deep = new Error('a', { cause: new Error('b', { cause: full() }) });
    expect(databaseFailed(store, deep)).toBe(true);
    expect(databaseFailed(store, new Error('the job itself failed'))).toBe(false);
    expect(databaseFailed(store, undefined)).toBe(false);
  });

  it('is recorded on a later try while the lease holds', async () => {
    let tries = 0;
    const recorded = await recordRunEnd(store, 20_000, async () => {
      tries += 1;
      if (tries === 1) throw full();
      return true;
    });
    expect(recorded).toBe(true);
    expect(tries).toBe(2);
  }, 10_000);

  it('is not tried again for another error, nor past the lease', async () => {
    await expect(
      recordRunEnd(store, 20_000, async () => {
        throw new Error('a bug');
      }),
    ).rejects.toThrow('a bug');
    let tries = 0;
    await expect(
      recordRunEnd(store, 1_000, async () => {
        tries += 1;
        throw full();
      }),
    ).rejects.toThrow('database or disk is full');
    expect(tries).toBe(1);
  });
});
