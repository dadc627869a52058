import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, TestClock } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const beat = (app: FastifyInstance, name: string, payload?: unknown) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/heartbeats/${name}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const missing = async (app: FastifyInstance) =>
  (await app.inject('/api/v1/incidents'))
    .json()
    .items.filter((item: { alert_name: string }) => item.alert_name === 'HeartbeatMissing');

/** CONTRACT, Heartbeats. */
describe.each(backends())('heartbeats on %s', (backend) => {
  it('records a beat with its defaults, and refuses a bad name or timeout', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    const answer = await beat(app, 'nightly-backup');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      name: 'nightly-backup',
      status: 'ok',
      timeout_seconds: 300,
      last_beat_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + 300_000).toISOString(),
    });
    expect((await beat(app, 'cron:job.1', { timeout_seconds: 10 })).json().timeout_seconds).toBe(
      10,
    );
    expect((await beat(app, 'bad name')).statusCode).toBe(422);
    expect((await beat(app, 'x', { timeout_seconds: 5 })).statusCode).toBe(422);
    expect((await beat(app, 'x', { timeout_seconds: 604_801 })).statusCode).toBe(422);
    const list = (await app.inject('/api/v1/heartbeats')).json();
    expect(list.items.map((item: { name: string }) => item.name)).toEqual([
      'cron:job.1',
      'nightly-backup',
    ]);
    expect(list.next_cursor).toBeNull();
  });

  it('a missed beat opens one HeartbeatMissing incident across replicas; the next beat resolves it', async () => {
    const clock = new TestClock();
    const env = { SIGNAL_CONSUMER: 'false' };
    const first = await buildTestApp({ backend, clock, env });
    if (backend === 'distributed') {
      await buildTestApp({ reuse: first, clock });
      await buildTestApp({ reuse: first, clock });
    }
    const { app } = first;
    await beat(app, 'etl', { timeout_seconds: 10, severity: 'critical', namespace: 'data' });
    clock.advance(11_000);
    const [incident] = await waitFor(
      async () => ((await missing(app)).length > 0 ? missing(app) : undefined),
      { what: 'the HeartbeatMissing incident', timeoutMs: 12_000 },
    );
    // Every replica's sweep has run at least once more by now: still one incident.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(await missing(app)).toHaveLength(1);
    expect(incident).toMatchObject({
      alert_type: 'HeartbeatMissing',
      target_resource: 'etl',
      // critical is P1, as for any alert (CONTRACT, Alert webhook).
      severity: 'P1',
      namespace: 'data',
    });
    const detail = (await app.inject(`/api/v1/incidents/${incident.id}`)).json();
    expect(detail.message).toContain('No heartbeat from etl since');
    const watched = (await app.inject('/api/v1/heartbeats')).json().items[0];
    expect(watched).toMatchObject({ name: 'etl', status: 'expired', incident_id: incident.id });

    expect((await beat(app, 'etl', { timeout_seconds: 10 })).json().status).toBe('ok');
    expect((await app.inject(`/api/v1/incidents/${incident.id}`)).json()).toMatchObject({
      status: 'resolved',
      resolved_by: 'heartbeat',
    });
  }, 40_000);

  it("Alertmanager's Watchdog beats watchdog:<receiver> and opens no incident", async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const delivered = await postSigned(app, '/api/v1/webhooks/alertmanager', {
      version: '4',
      receiver: 'team-x',
      status: 'firing',
      alerts: [{ status: 'firing', labels: { alertname: 'Watchdog', severity: 'none' } }],
    });
    expect(delivered.json().results[0]).toMatchObject({ status: 'heartbeat', incident_id: null });
    const viaApi = await app.inject({
      method: 'POST',
      url: '/api/v1/alertmanager/api/v2/alerts',
      payload: [{ labels: { alertname: 'Watchdog' } }],
    });
    expect(viaApi.statusCode).toBe(200);
    const items = (await app.inject('/api/v1/heartbeats')).json().items;
    expect(
      items.map((item: { name: string; timeout_seconds: number }) => [
        item.name,
        item.timeout_seconds,
      ]),
    ).toEqual([
      ['watchdog:prometheus', 600],
      ['watchdog:team-x', 600],
    ]);
    expect((await app.inject('/api/v1/incidents')).json().items).toEqual([]);
  });

  it('DELETE stops watching; the list and DELETE need the console token when it is set', async () => {
    const token = 'console-token-0123456789';
    const { app } = await buildTestApp({ backend, env: { CONSOLE_TOKEN: token } });
    await beat(app, 'gone');
    expect((await app.inject('/api/v1/heartbeats')).statusCode).toBe(401);
    const auth = { authorization: `Bearer ${token}` };
    const deleted = await app.inject({
      method: 'DELETE',
      url: '/api/v1/heartbeats/gone',
      headers: auth,
    });
    expect(deleted.json()).toEqual({ name: 'gone' });
    const again = await app.inject({
      method: 'DELETE',
      url: '/api/v1/heartbeats/gone',
      headers: auth,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({
      detail: 'Heartbeat not found: gone',
      code: 'heartbeat_not_found',
    });
    expect((await app.inject({ url: '/api/v1/heartbeats', headers: auth })).json().items).toEqual(
      [],
    );
  });
});
