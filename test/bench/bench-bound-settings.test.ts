import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchBound } from '../../src/config/variables.js';
import { deliver, issueAlert } from '../errtracker/tracker-delivery.js';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

/**
 * bench/README.md, Upper bounds: each BENCH_BOUND takes its one cost out and answers as
 * before. Every case runs with and without its setting, so a bound that stopped taking its
 * cost out (or a real build that lost it) fails here, not in a bench nobody runs.
 */
const SECRET = 'tracker-secret';

const rowsIn = (app: TestApp['app'], table: 'alerts' | 'external_alert_events' | 'outbox') =>
  app.services.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

const alert = (target: string) => ({
  alert_name: 'PodCrashLooping',
  alert_type: 'crash_loop',
  severity: 'critical',
  namespace: 'shop',
  target_resource: target,
});

async function appWith(bound: BenchBound | undefined) {
  const { app, close } = await buildTestApp({
    env: {
      SIGNAL_CONSUMER: 'false',
      ERRTRACKER_CLIENT_SECRET: SECRET,
      ...(bound ? { BENCH_BOUND: bound } : {}),
    },
  });
  return { app, close };
}

describe.each([
  undefined,
  'converge-write',
  'follow-up',
  'tracker-stages',
  'signal-append',
] as const)('with BENCH_BOUND=%s', (bound) => {
  let app: TestApp['app'];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await appWith(bound));
  });
  afterAll(() => close());

  it('converge-write: a repeat alert answers as before, its row written only without the bound', async () => {
    const first = await postSigned(app, '/api/v1/webhooks/alerts', alert('api-1'));
    const repeat = await postSigned(app, '/api/v1/webhooks/alerts', alert('api-1'));
    expect(first.statusCode).toBe(200);
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json()).toMatchObject({
      status: 'converged',
      incident_id: first.json().incident_id,
      hit_count: 2,
    });
    expect(await rowsIn(app, 'alerts')).toBe(bound === 'converge-write' ? 1 : 2);
  });

  it('follow-up: a new incident owes its follow-up job only without the bound', async () => {
    const created = await postSigned(app, '/api/v1/webhooks/alerts', alert('web-1'));
    expect(created.json()).toMatchObject({ status: 'created' });
    // On the embedded queue the job is the queue's own row, not an outbox row.
    const jobs = await app.services.store.db
      .selectFrom('jobs')
      .select('name')
      .where('name', '=', 'incident.follow-up')
      .execute();
    expect(jobs.length > 0).toBe(bound !== 'follow-up');
  });

  it('tracker-stages: a delivery answers as before, its stage rows written only without the bound', async () => {
    const response = await deliver(app, issueAlert(`bound-${bound ?? 'none'}`), { secret: SECRET });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'accepted' });
    expect((await rowsIn(app, 'external_alert_events')) > 0).toBe(bound !== 'tracker-stages');
  });

  it('signal-append: a signal answers as before, appended and counted only without the bound', async () => {
    const response = await postSigned(app, '/api/v1/webhooks/signals', {
      source: 'grafana',
      alert_name: 'HighLatency',
      target: 'api',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      message_id: expect.stringMatching(/^\d+-\d+$/),
      stream: 'platform:signals',
    });
    const listed = (await app.inject('/api/v1/signals?limit=1')).json();
    expect(listed.items.length).toBe(bound === 'signal-append' ? 0 : 1);
    const metrics = (await app.inject('/metrics')).body;
    expect(/^signals_produced_total\{[^}]*\} 1$/m.test(metrics)).toBe(bound !== 'signal-append');
  });
});
