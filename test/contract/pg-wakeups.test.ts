import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import { createSqlJobs } from '../../src/adapters/sql/sql-jobs.js';
import { createSqlStream } from '../../src/adapters/sql/sql-stream.js';
import type { Store } from '../../src/ports/store.js';
import { dropSchema, postgresUrlWithFreshSchema, storeKinds } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Two processes on one PostgreSQL schema find each other's work by LISTEN/NOTIFY, not by
 * polling: each side here polls once a minute, so only a wake-up can make it see the work
 * within seconds. Two stores stand in for two processes (each has its own connections).
 */
const log = pino({ level: 'silent' });
const clock = { now: () => Date.now() };
const MINUTE = 60_000;

describe.skipIf(!storeKinds().includes('postgres'))('PostgreSQL wake-ups', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function twoProcesses(): Promise<[Store, Store]> {
    const { url, schema } = postgresUrlWithFreshSchema();
    const parsed = new URL(url);
    parsed.searchParams.delete('schema');
    const first = await createPostgresStore({ url: parsed.toString(), schema });
    const second = await createPostgresStore({ url: parsed.toString(), schema });
    cleanups.push(async () => {
      await first.close();
      await second.close();
      await dropSchema(schema);
    });
    return [first, second];
  }

  /** A queue that enqueues and another that runs `name`, each polling once a minute. */
  async function twoQueues(name: string) {
    const [enqueuer, worker] = await twoProcesses();
    const producing = createSqlJobs(enqueuer, clock, log, { pollMs: MINUTE });
    const consuming = createSqlJobs(worker, clock, log, { pollMs: MINUTE });
    cleanups.push(
      () => producing.close(),
      () => consuming.close(),
    );
    const ran: unknown[] = [];
    consuming.process(name, async (payload) => void ran.push(payload), 1);
    await consuming.start();
    await producing.start();
    return { producing, ran };
  }

  it('a job enqueued by one process is run at once by another that only polls each minute', async () => {
    const { producing, ran } = await twoQueues('elsewhere');

    const started = Date.now();
    await producing.enqueue('elsewhere', { n: 1 });
    await waitFor(async () => (ran.length === 1 ? true : undefined), { timeoutMs: 5_000 });
    expect(ran).toEqual([{ n: 1 }]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("an append wakes another process's blocked reader before its poll", async () => {
    const [appender, reader] = await twoProcesses();
    const writing = createSqlStream(appender, clock);
    const reading = createSqlStream(reader, clock);
    cleanups.push(
      () => writing.close(),
      () => reading.close(),
    );
    await reading.ensureGroup('s', 'g');
    // The reader's first look finds nothing; it then sleeps until woken or 5 s pass.
    const read = reading.readGroup('s', 'g', 'c', {
      count: 10,
      blockMs: 20_000,
      claimIdleMs: MINUTE,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await writing.append('s', { hello: 'world' }, 100);
    const entries = await read;
    expect(entries.map((entry) => entry.fields)).toEqual([{ hello: 'world' }]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('listens again after its connection is killed, and looks for what it missed', async () => {
    const { producing, ran } = await twoQueues('after-kill');
    // Ends every LISTEN connection of the test database: the worker's among them.
    execFileSync('psql', [
      process.env.DATABASE_URL!,
      '-qtAc',
      "select pg_terminate_backend(pid) from pg_stat_activity where query like 'LISTEN%' and pid <> pg_backend_pid()",
    ]);
    // Enqueued while nobody listens: only the look after reconnecting can find it.
    await producing.enqueue('after-kill', { n: 2 });
    await waitFor(async () => (ran.length === 1 ? true : undefined), { timeoutMs: 10_000 });
    expect(ran).toEqual([{ n: 2 }]);
  });
});
