import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  AUTH,
  CONSOLE_TOKEN,
  createSilence,
  maintenanceAlert,
  postAlert,
  SILENCE,
  silenceBody,
} from './silence-helpers.js';

const HOUR = 60 * 60 * 1000;
let unique = 0;
/** An alert of its own identity, so tests never converge into each other's incidents. */
const alertNamed = (extra: Record<string, unknown> = {}) => {
  unique += 1;
  return {
    ...maintenanceAlert,
    alert_name: `Muted${unique}`,
    target_resource: `svc${unique}-7d9f8b6c5-x2x4z`,
    ...extra,
  };
};

describe.each(backends())('silences mute firing alerts on %s (CONTRACT, Silences)', (backend) => {
  const clock = new TestClock(Date.now());
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    }));
  });
  const incidents = async () =>
    (await app.inject({ url: '/api/v1/incidents?limit=200', headers: AUTH })).json()
      .items as Array<{
      alert_name: string;
    }>;

  it('answers a muted alert {status: silenced, alert_id, fingerprint, silence_id, incident_id: null} and creates nothing', async () => {
    const alert = alertNamed();
    const id = await createSilence(
      app,
      silenceBody(clock.now(), [{ name: 'alertname', value: alert.alert_name }]),
    );
    const response = await postAlert(app, alert);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'silenced',
      alert_id: expect.stringMatching(/^alert-\d{14}$/),
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      silence_id: id,
      incident_id: null,
    });
    expect((await incidents()).some((incident) => incident.alert_name === alert.alert_name)).toBe(
      false,
    );
    const approvals = (await app.inject({ url: '/api/v1/approvals', headers: AUTH })).json().items;
    expect(approvals).toEqual([]);
  });

  it('counts muted alerts in alerts_silenced_total and on the silence, newest first', async () => {
    const alert = alertNamed();
    const id = await createSilence(
      app,
      silenceBody(clock.now(), [{ name: 'alertname', value: alert.alert_name }]),
    );
    const before = await silencedTotal();
    const first = (await postAlert(app, alert)).json();
    const second = (await postAlert(app, { ...alert, target_resource: 'other-pod' })).json();
    expect(await silencedTotal()).toBe(before + 2);
    const shown = (await app.inject({ url: `${SILENCE}/${id}`, headers: AUTH })).json();
    expect(shown.silenced_alerts).toBe(2);
    expect(shown.recent_silenced.map((muted: { alert_id: string }) => muted.alert_id)).toEqual([
      second.alert_id,
      first.alert_id,
    ]);
    expect(shown.recent_silenced[0].fingerprint).toBe(second.fingerprint);
  });

  async function silencedTotal(): Promise<number> {
    const text = (await app.inject('/metrics')).body;
    const line = text.split('\n').find((row) => row.startsWith('alerts_silenced_total '));
    return Number(line?.split(' ')[1] ?? 0);
  }

  it('matches the flat alert fields as labels: alertname, severity as sent, namespace, alert_type, workload', async () => {
    const alert = alertNamed({
      severity: 'warning',
      namespace: 'billing',
      alert_type: 'crash_loop',
      target_resource: 'checkout-7d9f8b6c5-x2x4z',
    });
    const id = await createSilence(
      app,
      silenceBody(clock.now(), [
        { name: 'alertname', value: alert.alert_name },
        { name: 'severity', value: 'warning' },
        { name: 'namespace', value: 'billing' },
        { name: 'alert_type', value: 'crash_loop' },
        { name: 'workload', value: 'checkout' },
        { name: 'team', value: 'payments' },
      ]),
    );
    expect((await postAlert(app, alert)).json()).toMatchObject({
      status: 'silenced',
      silence_id: id,
    });
  });

  it('anchors regexes fully, negates with isEqual: false, and takes a missing label as ""', async () => {
    const name = alertNamed().alert_name;
    await createSilence(
      app,
      silenceBody(clock.now(), [
        { name: 'alertname', value: `${name.slice(0, 5)}.*`, isRegex: true },
        { name: 'alertname', value: `${name}`, isEqual: true },
        { name: 'env', value: 'prod', isEqual: false },
        { name: 'missing', value: '' },
      ]),
    );
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).toBe('silenced');
    // Not a prefix match: `Muted` alone does not match `^(?:Mute)$`.
    const anchored = alertNamed();
    await createSilence(
      app,
      silenceBody(clock.now(), [{ name: 'alertname', value: 'Mute', isRegex: true }]),
    );
    expect((await postAlert(app, anchored)).json().status).toBe('created');
    // isEqual false: a matching label value is not muted.
    const prod = alertNamed({ alert_name: name, labels: { env: 'prod' } });
    expect((await postAlert(app, prod)).json().status).not.toBe('silenced');
  });

  it('mutes an Alertmanager batch alert by its labels, and never a resolved alert', async () => {
    const name = alertNamed().alert_name;
    await createSilence(app, silenceBody(clock.now(), [{ name: 'alertname', value: name }]));
    const body = {
      version: '4',
      status: 'firing',
      alerts: [
        { status: 'firing', labels: { alertname: name, pod: 'api-1', namespace: 'shop' } },
        { status: 'resolved', labels: { alertname: name, pod: 'api-1', namespace: 'shop' } },
      ],
    };
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/alerts',
      payload: body,
    });
    const [firing, resolved] = response.json().results;
    expect(firing.status).toBe('silenced');
    expect(resolved.status).toBe('resolved');
  });

  it('does not mute before startsAt (pending) or after endsAt (expired)', async () => {
    const name = alertNamed().alert_name;
    const now = clock.now();
    await createSilence(
      app,
      silenceBody(now, [{ name: 'alertname', value: name }], {
        startsAt: new Date(now + HOUR).toISOString(),
        endsAt: new Date(now + 2 * HOUR).toISOString(),
      }),
    );
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).toBe('created');
    clock.advance(HOUR);
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).toBe('silenced');
    clock.advance(HOUR);
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).not.toBe(
      'silenced',
    );
  });

  it('stops muting once expired with DELETE', async () => {
    const name = alertNamed().alert_name;
    const id = await createSilence(
      app,
      silenceBody(clock.now(), [{ name: 'alertname', value: name }]),
    );
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).toBe('silenced');
    await app.inject({ method: 'DELETE', url: `${SILENCE}/${id}`, headers: AUTH });
    expect((await postAlert(app, alertNamed({ alert_name: name }))).json().status).toBe('created');
  });

  it('mutes a signal turned into an alert the same way', async () => {
    const { app: consuming } = await buildTestApp({ backend, env: { CONSOLE_TOKEN } });
    const name = `SignalMuted${++unique}`;
    await createSilence(consuming, silenceBody(Date.now(), [{ name: 'alertname', value: name }]));
    const signal = { alert_name: name, severity: 'critical', source: 'probe', target: 'api-1' };
    const sent = await consuming.inject({
      method: 'POST',
      url: '/api/v1/webhooks/signals',
      payload: signal,
    });
    expect(sent.statusCode).toBe(200);
    await waitFor(
      async () => {
        const text = (await consuming.inject('/metrics')).body;
        return text.includes('signals_consumed_total{outcome="silenced"} 1') ? true : undefined;
      },
      { what: 'the signal muted', timeoutMs: 10_000 },
    );
    const listed = (await consuming.inject({ url: '/api/v1/incidents', headers: AUTH })).json();
    expect(listed.items).toEqual([]);
  });
});
