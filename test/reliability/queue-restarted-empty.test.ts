import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOutboxJobs } from '../../src/features/outbox/outbox-records.js';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { type PrivateRedis, startPrivateRedis } from '../helpers/private-services.js';
import { waitFor } from '../helpers/wait-for.js';

/** A job no handler takes, so it stays queued in Redis until Redis loses it. */
const UNHANDLED_JOB = 'reliability-never-run';
const JOB_ID = 'lost-in-restart';
const KEPT_ID = 'kept-across-a-reconnect';

/**
 * A follow-up job the queue took is lost when Redis restarts without persistence. Its outbox
 * row would wait for its recheck (minutes); the queue's reconnect makes the relay offer it
 * again within seconds. A private Redis, since it is killed and started again empty.
 */
describe('a job queue restarted empty', () => {
  let redis: PrivateRedis;
  let test: TestApp;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    test = await buildTestApp({
      env: { REDIS_URL: redis.url, SIGNAL_CONSUMER: 'false', REDIS_KEY_PREFIX: 'emptied:' },
    });
  });

  afterAll(async () => {
    await test?.close();
    await redis?.stop();
  });

  const outboxRow = (jobId = JOB_ID) =>
    test.app.services.store.db
      .selectFrom('outbox')
      .select(['attempts', 'relayed_at', 'relay_after', 'completed_at'])
      .where('job_id', '=', jobId)
      .executeTakeFirstOrThrow();

  it('does not offer it again when only the connection dropped (same server, jobs kept)', async () => {
    const { services } = test.app;
    await services.store.db
      .transaction()
      .execute((tx) =>
        insertOutboxJobs(
          tx,
          [{ name: UNHANDLED_JOB, payload: { n: 0 }, jobId: KEPT_ID }],
          Date.now(),
        ),
      );
    expect(await services.outbox.relay(KEPT_ID)).toBe(true);
    const killer = new Redis(redis.url);
    try {
      // Drops every other client; the service's connections reconnect to the same server.
      expect(Number(await killer.client('KILL', 'TYPE', 'normal'))).toBeGreaterThan(0);
    } finally {
      killer.disconnect();
    }
    await waitFor(
      async () => ((await test.app.inject('/api/v1/readyz')).statusCode === 200 ? true : undefined),
      {
        what: 'the service ready again',
        timeoutMs: 10_000,
      },
    );
    // Two relay passes (one a second) after the reconnect: the row is still waiting.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await outboxRow(KEPT_ID)).toMatchObject({ attempts: 1, completed_at: null });
  });

  it('offers a relayed job again soon after Redis comes back empty', async () => {
    const { services } = test.app;
    await services.store.db
      .transaction()
      .execute((tx) =>
        insertOutboxJobs(
          tx,
          [{ name: UNHANDLED_JOB, payload: { n: 1 }, jobId: JOB_ID }],
          Date.now(),
        ),
      );
    expect(await services.outbox.relay(JOB_ID)).toBe(true);
    const first = await outboxRow();
    expect(first).toMatchObject({ attempts: 1, completed_at: null });
    // Not offered again before its recheck while the queue keeps it.
    expect(first.relay_after).toBeGreaterThan(Date.now() + 60_000);

    await redis.kill();
    await redis.start();

    const again = await waitFor(
      async () => {
        const row = await outboxRow();
        return row.attempts === 2 ? row : undefined;
      },
      { what: 'the lost job offered again', timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(again.relayed_at).toBeGreaterThan(first.relayed_at!);
    expect(again.completed_at).toBeNull();
  });
});
