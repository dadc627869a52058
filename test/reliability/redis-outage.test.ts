import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { timed } from '../helpers/outage-requests.js';
import { type PrivateRedis, startPrivateRedis } from '../helpers/private-services.js';
import { waitFor } from '../helpers/wait-for.js';

const SIGNALS = '/api/v1/webhooks/signals';
const SIGNAL = { source: 'grafana', alert_name: 'HighLatency', target: 'api' };
const UNAVAILABLE = {
  detail: 'Failed to produce signal: Redis unavailable',
  code: 'signal_stream_unavailable',
};
/** CONTRACT, Under races, crashes and abuse: 503 within 2 s, plus room for a loaded machine. */
const BOUND_MS = 3000;

/**
 * Finding: "A Redis outage hangs requests instead of failing them." On a private Redis
 * (never the shared one), frozen and then killed: signals fail within the bound with a
 * detail free of driver wording, enqueueing a job fails within it too, readiness names
 * Redis, and everything works again once Redis is back, without restarting the app.
 */
describe('a Redis outage', () => {
  let redis: PrivateRedis;
  let test: TestApp;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    test = await buildTestApp({
      env: { REDIS_URL: redis.url, SIGNAL_CONSUMER: 'false', REDIS_KEY_PREFIX: 'outage:' },
    });
  });

  afterAll(async () => {
    redis?.thaw();
    await test?.close();
    await redis?.stop();
  });

  it('works while Redis is up', async () => {
    expect((await postSigned(test.app, SIGNALS, SIGNAL)).statusCode).toBe(200);
    await test.app.services.jobs.enqueue('reliability-warm', { n: 1 });
    const ready = await test.app.inject('/api/v1/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ready',
      checks: { database: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('fails a signal within the bound when Redis answers nothing (frozen)', async () => {
    redis.freeze();
    try {
      const { value: response, ms } = await timed(() => postSigned(test.app, SIGNALS, SIGNAL));
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toEqual(UNAVAILABLE);
      expect(ms).toBeLessThan(BOUND_MS);

      const enqueue = await timed(() =>
        test.app.services.jobs.enqueue('reliability-warm', { n: 2 }).then(
          () => 'enqueued',
          (error: Error) => error.message,
        ),
      );
      expect(enqueue.value).toBe('Redis unavailable');
      expect(enqueue.ms).toBeLessThan(BOUND_MS);
    } finally {
      redis.thaw();
    }
  });

  it('fails signals, jobs and readiness within the bound while Redis is down', async () => {
    await redis.kill();
    const { value: response, ms } = await timed(() => postSigned(test.app, SIGNALS, SIGNAL));
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.json()).toEqual(UNAVAILABLE);
    expect(ms).toBeLessThan(BOUND_MS);

    // A queue first used during the outage, and one used before it.
    for (const name of ['reliability-cold', 'reliability-warm']) {
      const enqueue = await timed(() =>
        test.app.services.jobs.enqueue(name, { n: 3 }).then(
          () => 'enqueued',
          (error: Error) => error.message,
        ),
      );
      expect(enqueue.value).toBe('Redis unavailable');
      expect(enqueue.ms).toBeLessThan(BOUND_MS);
    }

    const alert = await timed(() =>
      postSigned(test.app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'critical',
        namespace: 'shop',
        target_resource: 'checkout-7d9f8b6c5-x2x4z',
      }),
    );
    expect(alert.ms).toBeLessThan(BOUND_MS);

    const ready = await timed(() => test.app.inject('/api/v1/readyz'));
    expect(ready.value.statusCode).toBe(503);
    expect(ready.value.json()).toMatchObject({
      status: 'not_ready',
      failing: ['redis'],
      checks: { database: { status: 'up' }, redis: { status: 'down' } },
    });
    expect(ready.ms).toBeLessThan(BOUND_MS);
    expect((await test.app.inject('/api/v1/livez')).json()).toEqual({ status: 'ok' });
  });

  it('serves signals and jobs again once Redis is back, without a restart', async () => {
    await redis.start();
    await waitFor(
      async () =>
        (await postSigned(test.app, SIGNALS, SIGNAL)).statusCode === 200 ? true : undefined,
      { what: 'a signal accepted after Redis came back', timeoutMs: 15_000, intervalMs: 200 },
    );
    await waitFor(
      () =>
        test.app.services.jobs.enqueue('reliability-cold', { n: 4 }).then(
          () => true,
          () => undefined,
        ),
      { what: 'a job enqueued after Redis came back', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect((await test.app.inject('/api/v1/readyz')).statusCode).toBe(200);
  });
});
