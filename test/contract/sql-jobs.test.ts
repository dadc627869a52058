import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqlJobs, type SqlJobsOptions } from '../../src/adapters/sql/sql-jobs.js';
import type { Clock } from '../../src/ports/clock.js';
import type { JobQueue } from '../../src/ports/jobs.js';
import type { Store } from '../../src/ports/store.js';
import { makeStore, storeKinds, type TestStore } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait-for.js';

/** What only the embedded queue promises: lease expiry, recorded errors, guarded claims. */
const log = pino({ level: 'silent' });

/** Real time plus an offset the test can move forward. */
function movableClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      offset += ms;
    },
  };
}

function until(check: () => boolean): Promise<true> {
  return waitFor(async () => (check() ? true : undefined), { intervalMs: 10 });
}

/** The job's row once it is completed or failed. */
function settledRow(store: Store, id: string) {
  return waitFor(
    async () => {
      const row = await store.db
        .selectFrom('jobs')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return row.status === 'completed' || row.status === 'failed' ? row : undefined;
    },
    { intervalMs: 10, what: `job ${id} to settle` },
  );
}

/** A row as a process that died while running the job would have left it. */
async function orphanRow(store: Store, id: string, attemptsMade: number, lockedUntil: number) {
  await store.db
    .insertInto('jobs')
    .values({
      id,
      name: 'resume',
      payload: JSON.stringify({ id }),
      status: 'running',
      attempts_made: attemptsMade,
      max_attempts: 3,
      run_after: lockedUntil - 60_000,
      locked_until: lockedUntil,
      last_error: null,
      created_at: lockedUntil - 60_000,
      updated_at: lockedUntil - 60_000,
    })
    .execute();
}

describe.each(storeKinds())('SQL jobs on %s', (kind) => {
  let testStore: TestStore;
  let store: Store;
  let clock: ReturnType<typeof movableClock>;
  let opened: JobQueue[];

  function open(options: SqlJobsOptions = {}): JobQueue {
    const queue = createSqlJobs(store, clock, log, { pollMs: 25, backoffMs: 10, ...options });
    opened.push(queue);
    return queue;
  }

  beforeEach(async () => {
    testStore = await makeStore(kind);
    store = testStore.store;
    clock = movableClock();
    opened = [];
  });

  afterEach(async () => {
    await Promise.all(opened.map((q) => q.close()));
    await testStore.cleanup();
  });

  it('resumes a job whose process died while running it, once its lease ran out', async () => {
    await orphanRow(store, 'orphan', 1, clock.now() + 60_000);
    const queue = open();
    const seen: unknown[] = [];
    queue.process('resume', async (payload) => void seen.push(payload), 1);
    await queue.start();
    await sleep(150);
    expect(seen).toEqual([]);

    clock.advance(61_000);
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ id: 'orphan' }]);
    expect(await settledRow(store, 'orphan')).toMatchObject({
      status: 'completed',
      attempts_made: 2,
      locked_until: null,
    });
  });

  it('fails an interrupted job that has used up its starts instead of running it', async () => {
    // Three attempts plus one start of grace for an interrupted run: a fifth start is refused.
    await orphanRow(store, 'poison', 4, clock.now() - 1);
    const givenUp: string[] = [];
    const queue = open({ onGivenUp: (name) => givenUp.push(name) });
    let calls = 0;
    queue.process(
      'resume',
      async () => {
        calls += 1;
      },
      1,
    );
    await queue.start();
    const row = await settledRow(store, 'poison');
    expect(row.status).toBe('failed');
    expect(row.last_error).toMatch(/interrupted/);
    expect(calls).toBe(0);
    // jobs_given_up_total: the job does not run again.
    await waitFor(async () => (givenUp.length > 0 ? true : undefined), { what: 'the give-up' });
    expect(givenUp).toEqual(['resume']);
  });

  it('renews the lease of a long job so another instance does not take it over', async () => {
    let calls = 0;
    for (const queue of [open({ leaseMs: 90 }), open({ leaseMs: 90 })]) {
      queue.process(
        'long',
        async () => {
          calls += 1;
          await sleep(400);
        },
        1,
      );
      await queue.start();
    }
    const id = await opened[0]!.enqueue('long', {});
    expect(await settledRow(store, id)).toMatchObject({ status: 'completed', attempts_made: 1 });
    expect(calls).toBe(1);
  });

  it('records the last error of a job that ran out of attempts, and tells it was given up once', async () => {
    const givenUp: string[] = [];
    const queue = open({ onGivenUp: (name) => givenUp.push(name) });
    let calls = 0;
    queue.process(
      'broken',
      async () => {
        calls += 1;
        throw new Error(`broken ${calls}`);
      },
      1,
    );
    await queue.start();
    const id = await queue.enqueue('broken', {}, { attempts: 2 });
    expect(await settledRow(store, id)).toMatchObject({
      status: 'failed',
      attempts_made: 2,
      last_error: 'broken 2',
    });
    // The first failure was retried, not given up.
    await waitFor(async () => (givenUp.length > 0 ? true : undefined), { what: 'the give-up' });
    expect(givenUp).toEqual(['broken']);
  });

  it('waits out the backoff on the injected clock before retrying', async () => {
    const queue = open({ backoffMs: 60_000 });
    let calls = 0;
    queue.process(
      'later',
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('not yet');
      },
      1,
    );
    await queue.start();
    const id = await queue.enqueue('later', {});
    await until(() => calls === 1);
    await sleep(150);
    expect(calls).toBe(1);
    clock.advance(60_000);
    expect(await settledRow(store, id)).toMatchObject({ status: 'completed', attempts_made: 2 });
  });

  /**
   * A database full for anything that grows the file (a real SQLITE_FULL), and a write that
   * needs room: the job's `run`th try frees the room first.
   */
  async function fillUpUntil(run: number) {
    await sql`create table scratch (body blob)`.execute(store.db);
    const pages = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
    await sql.raw(`pragma max_page_count = ${pages.rows[0]!.page_count + 8}`).execute(store.db);
    let runs = 0;
    return {
      runs: () => runs,
      async writeNeedingRoom() {
        runs += 1;
        if (runs === run) await sql.raw('pragma max_page_count = 1000000').execute(store.db);
        await sql`insert into scratch (body) values (${Buffer.alloc(256 * 1024)})`.execute(
          store.db,
        );
      },
    };
  }

  it.runIf(kind === 'sqlite')(
    'retries a job the database itself failed (storage full) within seconds, without spending a try',
    async () => {
      const disk = await fillUpUntil(3);
      const queue = open({ backoffMs: 60_000 });
      queue.process('needs-room', () => disk.writeNeedingRoom(), 1);
      await queue.start();
      const id = await queue.enqueue('needs-room', {}, { attempts: 2 });
      // Two outage retries, each after about 2 s, not the 60 s backoff; and the job's two
      // tries are untouched: the run that succeeded was its first that counted.
      expect(await settledRow(store, id)).toMatchObject({ status: 'completed', attempts_made: 1 });
      expect(disk.runs()).toBe(3);
    },
    20_000,
  );

  it.runIf(kind === 'sqlite')(
    'treats a job error caused by the database failing (storage full) as the database failing',
    async () => {
      const disk = await fillUpUntil(2);
      const queue = open({ backoffMs: 60_000 });
      queue.process(
        'reports-its-parts',
        async () => {
          try {
            await disk.writeNeedingRoom();
          } catch (error) {
            // As a job that follows several incidents reports the first one's failure.
            throw new Error('follow-up of 1 of 1 incidents failed', { cause: error });
          }
        },
        1,
      );
      await queue.start();
      const id = await queue.enqueue('reports-its-parts', {}, { attempts: 2 });
      expect(await settledRow(store, id)).toMatchObject({ status: 'completed', attempts_made: 1 });
      expect(disk.runs()).toBe(2);
    },
    20_000,
  );
});
