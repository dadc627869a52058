import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';

/**
 * A row whose payload no job could run (not a JSON object: never written by this service,
 * say a hand edit) is given up alone; the rows relayed with it still reach the queue.
 */
describe('an outbox row with an unreadable payload', () => {
  let test: TestApp;

  beforeAll(async () => {
    test = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
  });

  afterAll(async () => {
    await test?.close();
  });

  it('is given up without stalling its batch', async () => {
    const { services } = test.app;
    const row = (jobId: string, payload: string) => ({
      job_id: jobId,
      job_name: 'reliability-never-run',
      payload,
      created_at: Date.now(),
      relay_after: 0,
      last_error: null,
      relayed_at: null,
      completed_at: null,
      gave_up_at: null,
    });
    await services.store.db
      .insertInto('outbox')
      .values([
        row('bad-payload', '{not json'),
        row('array-payload', '[1]'),
        row('good-payload', '{"n":1}'),
      ])
      .execute();

    expect(await services.outbox.relayAll(['bad-payload', 'array-payload', 'good-payload'])).toBe(
      1,
    );
    const rows = await services.store.db
      .selectFrom('outbox')
      .select(['job_id', 'gave_up_at', 'relayed_at'])
      .where('job_id', 'in', ['bad-payload', 'array-payload', 'good-payload'])
      .orderBy('job_id')
      .execute();
    expect(rows.map((r) => [r.job_id, r.gave_up_at !== null, r.relayed_at !== null])).toEqual([
      ['array-payload', true, false],
      ['bad-payload', true, false],
      ['good-payload', false, true],
    ]);
  });
});
