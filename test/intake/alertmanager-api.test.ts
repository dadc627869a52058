import { describe, expect, it } from 'vitest';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';

const TOKEN = 'receiver-token-0123456789';
const URL = '/api/v1/alertmanager/api/v2/alerts';

/** CONTRACT, Silences, and Alertmanager's own API: `POST …/api/v2/alerts`. */
describe.each(backends())("Alertmanager's alerts API on %s", (backend) => {
  const post = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], payload: unknown) =>
    app.inject({
      method: 'POST',
      url: URL,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
    });

  it('takes postable alerts: endsAt ahead or absent fires, endsAt passed resolves; 200 empty', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', RECEIVER_TOKENS: TOKEN },
    });
    const labels = {
      alertname: 'HighErrorRate',
      severity: 'critical',
      namespace: 'shop',
      pod: 'api-1',
    };
    const later = new Date(clock.now() + 3_600_000).toISOString();
    const fired = await post(app, [{ labels, annotations: { summary: 's' }, endsAt: later }]);
    expect(fired.statusCode).toBe(200);
    expect(fired.body).toBe('');
    const list = (await app.inject('/api/v1/incidents')).json().items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ alert_name: 'HighErrorRate', severity: 'P1', status: 'open' });

    // Prometheus sends the same alert again while it fires (no endsAt): a repeat.
    expect((await post(app, [{ labels }])).statusCode).toBe(200);
    expect((await app.inject(`/api/v1/incidents/${list[0].id}`)).json().hit_count).toBe(2);

    const ended = new Date(clock.now() - 1000).toISOString();
    expect((await post(app, [{ labels, endsAt: ended }])).statusCode).toBe(200);
    expect((await app.inject(`/api/v1/incidents/${list[0].id}`)).json()).toMatchObject({
      status: 'resolved',
      resolved_by: 'alert',
    });
  });

  it('answers 400 naming the problem for a body that is not postable alerts, and 401 without the token', async () => {
    const { app } = await buildTestApp({ backend, env: { RECEIVER_TOKENS: TOKEN } });
    for (const [payload, detail] of [
      [{ labels: {} }, 'body must be an array of alerts'],
      [[1], 'alert 0 must be an object'],
      [[{ annotations: {} }], 'alert 0 has no labels object'],
      [[{ labels: { a: 'b' }, endsAt: 'soon' }], 'alert 0 has an endsAt that is not a date-time'],
    ] as const) {
      const answer = await post(app, payload);
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toEqual({ detail, code: 'bad_body' });
    }
    const anonymous = await app.inject({ method: 'POST', url: URL, payload: [] });
    expect(anonymous.statusCode).toBe(401);
  });
});
