import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBullmqJobs } from '../../src/adapters/redis/bullmq-jobs.js';
import { createSqlJobs } from '../../src/adapters/sql/sql-jobs.js';
import { systemClock } from '../../src/ports/clock.js';
import type { JobQueue } from '../../src/ports/jobs.js';
import { makeRedis, makeStore, redisUrlForTests, storeKinds } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait-for.js';

const log = pino({ level: 'silent' });

interface QueueSettings {
  closeTimeoutMs?: number;
}

interface Backend {
  /** A new queue instance on the same shared state, as a second or restarted process. */
  queue(settings?: QueueSettings): JobQueue;
  cleanup(): Promise<void>;
}

const backends: [string, () => Promise<Backend>][] = storeKinds().map((kind) => [
  `sql (${kind})`,
  async () => {
    const { store, cleanup } = await makeStore(kind);
    return {
      queue: (settings = {}) =>
        createSqlJobs(store, systemClock, log, { pollMs: 25, backoffMs: 10, ...settings }),
      cleanup,
    };
  },
]);
const redisUrl = redisUrlForTests();
if (redisUrl) {
  backends.push([
    'bullmq',
    async () => {
      const { prefix, cleanup } = await makeRedis();
      return {
        queue: (settings = {}) =>
          createBullmqJobs(redisUrl, prefix, log, { backoffMs: 10, ...settings }),
        cleanup,
      };
    },
  ]);
}

function until(check: () => boolean): Promise<true> {
  return waitFor(async () => (check() ? true : undefined), { intervalMs: 10 });
}

describe.each(backends)('JobQueue contract: %s', (_label, makeBackend) => {
  let backend: Backend;
  let opened: JobQueue[];

  function open(settings?: QueueSettings): JobQueue {
    const queue = backend.queue(settings);
    opened.push(queue);
    return queue;
  }

  beforeEach(async () => {
    backend = await makeBackend();
    opened = [];
  });

  afterEach(async () => {
    await Promise.all(opened.map((q) => q.close()));
    await backend.cleanup();
  });

  it('runs a job with its payload', async () => {
    const queue = open();
    const seen: unknown[] = [];
    queue.process('greet', async (payload) => void seen.push(payload), 1);
    await queue.start();
    const id = await queue.enqueue('greet', { who: 'world', n: 1 });
    expect(typeof id).toBe('string');
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ who: 'world', n: 1 }]);
  });

  it('keeps to the per-name concurrency', async () => {
    const queue = open();
    let active = 0;
    let peak = 0;
    let done = 0;
    queue.process(
      'slow',
      async () => {
        active += 1;
        peak = Math.max(peak, active);
        await sleep(80);
        active -= 1;
        done += 1;
      },
      2,
    );
    await queue.start();
    for (let i = 0; i < 6; i += 1) await queue.enqueue('slow', { i });
    await until(() => done === 6);
    expect(peak).toBe(2);
  });

  it('runs each job once when two instances share the backend', async () => {
    const runs: number[] = [];
    for (const queue of [open(), open()]) {
      queue.process(
        'shared',
        async (payload) => {
          await sleep(5);
          runs.push(payload.i as number);
        },
        3,
      );
      await queue.start();
    }
    const producer = open();
    for (let i = 0; i < 20; i += 1) await producer.enqueue('shared', { i });
    await until(() => runs.length >= 20);
    await sleep(200);
    expect([...runs].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('retries a failing job until it succeeds', async () => {
    const queue = open();
    let calls = 0;
    let succeeded = false;
    queue.process(
      'flaky',
      async () => {
        calls += 1;
        if (calls < 3) throw new Error(`boom ${calls}`);
        succeeded = true;
      },
      1,
    );
    await queue.start();
    await queue.enqueue('flaky', {}, { attempts: 3 });
    await until(() => succeeded);
    expect(calls).toBe(3);
  });

  it('stops a job that always fails after its attempts', async () => {
    const queue = open();
    let calls = 0;
    queue.process(
      'doomed',
      async () => {
        calls += 1;
        throw new Error('always');
      },
      1,
    );
    await queue.start();
    await queue.enqueue('doomed', {}, { attempts: 2 });
    await until(() => calls === 2);
    await sleep(300);
    expect(calls).toBe(2);
  });

  it('does not enqueue a job id again while it is queued', async () => {
    const first = open();
    const firstId = await first.enqueue('dedup', { v: 1 }, { jobId: 'incident:42' });
    const secondId = await first.enqueue('dedup', { v: 2 }, { jobId: 'incident:42' });
    expect(firstId).toBe('incident:42');
    expect(secondId).toBe('incident:42');
    const seen: unknown[] = [];
    first.process('dedup', async (payload) => void seen.push(payload), 1);
    await first.start();
    await until(() => seen.length === 1);
    await sleep(200);
    expect(seen).toEqual([{ v: 1 }]);
  });

  it('runs a finished job id again when it is enqueued again', async () => {
    const queue = open();
    const seen: unknown[] = [];
    queue.process('again', async (payload) => void seen.push(payload), 1);
    await queue.start();
    await queue.enqueue('again', { v: 1 }, { jobId: '7' });
    await until(() => seen.length === 1);
    // The run is over once the handler returns, but recording it may lag a moment.
    await sleep(100);
    await queue.enqueue('again', { v: 2 }, { jobId: '7' });
    await until(() => seen.length === 2);
    expect(seen).toEqual([{ v: 1 }, { v: 2 }]);
  });

  it('runs jobs enqueued before a restart on a new instance', async () => {
    const before = open();
    await before.enqueue('durable', { kept: true });
    await before.close();

    const after = open();
    const seen: unknown[] = [];
    after.process('durable', async (payload) => void seen.push(payload), 1);
    await after.start();
    await until(() => seen.length === 1);
    expect(seen).toEqual([{ kept: true }]);
  });

  it('waits in close for a running job to finish', async () => {
    const queue = open();
    let started = false;
    let finished = false;
    queue.process(
      'long',
      async () => {
        started = true;
        await sleep(300);
        finished = true;
      },
      1,
    );
    await queue.start();
    await queue.enqueue('long', {});
    await until(() => started);
    await queue.close();
    expect(finished).toBe(true);
  });

  it('gives up waiting in close after its timeout', async () => {
    const queue = open({ closeTimeoutMs: 100 });
    let started = false;
    let finished = false;
    queue.process(
      'stuck',
      async () => {
        started = true;
        await sleep(1000);
        finished = true;
      },
      1,
    );
    await queue.start();
    await queue.enqueue('stuck', {});
    await until(() => started);
    const closing = Date.now();
    await queue.close();
    expect(Date.now() - closing).toBeLessThan(800);
    expect(finished).toBe(false);
    // Let the handler end, and its end be recorded, before the backend is torn down.
    await until(() => finished);
    await sleep(100);
  });
});
