import { describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

/** CONTRACT, Hostile clients: cross-site posts, rebinding hosts, huge batches, control characters. */

const FORM_TYPES = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
];
const ALERT = JSON.stringify({ alert_name: 'CrossSite', severity: 'P1', target_resource: 'db' });
const UNGUARDED_POSTS = [
  '/api/v1/webhooks/alerts',
  '/api/v1/webhooks/signals',
  '/api/v1/webhooks/alertmanager',
  '/api/v1/webhooks/errtracker/error',
  '/api/v1/chatops/webhook',
  '/api/v1/chatops/test-push',
  '/api/v1/agents/analyze',
];

async function incidentCount(test: TestApp): Promise<number> {
  const list = await test.app.inject({ method: 'GET', url: '/api/v1/incidents' });
  return (list.json() as { items: unknown[] }).items.length;
}

describe('form and plain-text posts', () => {
  it.each(FORM_TYPES)(
    '%s is refused 415 on every route no secret guards, and records nothing',
    async (type) => {
      const test = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
      for (const url of UNGUARDED_POSTS) {
        const answer = await test.app.inject({
          method: 'POST',
          url,
          payload: ALERT,
          headers: { 'content-type': type },
        });
        expect(answer.statusCode, url).toBe(415);
        expect(answer.json().detail, url).toMatch(/^Unsupported content type: /);
      }
      expect(await incidentCount(test)).toBe(0);
      const signals = await test.app.inject({ method: 'GET', url: '/api/v1/signals' });
      expect(signals.json().items).toEqual([]);
    },
  );

  it('a body with no content type at all, as sendBeacon sends it, is refused 415 too', async () => {
    const test = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    for (const url of UNGUARDED_POSTS) {
      const answer = await test.app.inject({ method: 'POST', url, payload: Buffer.from(ALERT) });
      expect(answer.statusCode, url).toBe(415);
      expect(answer.json().detail, url).toBe(
        'Unsupported content type: none; send application/json',
      );
    }
    expect(await incidentCount(test)).toBe(0);
  });

  it('a route whose secret is configured keeps reading every body as JSON', async () => {
    const secret = 'webhook-secret-0123456789';
    const token = 'receiver-token-0123456789';
    const test = await buildTestApp({ env: { WEBHOOK_SECRET: secret, RECEIVER_TOKENS: token } });
    const signed = await postSigned(test.app, '/api/v1/webhooks/alerts', ALERT, secret, {
      'content-type': 'text/plain',
    });
    expect(signed.statusCode).toBe(200);
    const unsigned = await test.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/alerts',
      payload: ALERT,
      headers: { 'content-type': 'text/plain' },
    });
    expect(unsigned.statusCode).toBe(401);
    const byToken = await test.app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/alertmanager',
      payload: ALERT,
      headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` },
    });
    expect(byToken.statusCode).toBe(200);
  });
});

describe('DNS rebinding', () => {
  const get = (test: TestApp, host: string) =>
    test.app.inject({ method: 'GET', url: '/api/v1/incidents', headers: { host } });

  it('while listening on loopback, a Host that is not loopback gets 421 naming it without its port', async () => {
    const test = await buildTestApp();
    const answer = await get(test, 'rebound.attacker.example:8080');
    expect(answer.statusCode).toBe(421);
    expect(answer.json()).toEqual({
      detail: 'Unknown host: rebound.attacker.example',
      code: 'unknown_host',
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    for (const host of [
      'localhost:8080',
      '127.0.0.1:8080',
      '127.0.0.2',
      '[::1]:8080',
      'LOCALHOST',
    ]) {
      expect((await get(test, host)).statusCode, host).toBe(200);
    }
  });

  it('ALLOWED_HOSTS adds names, and applies on every listen address', async () => {
    const loopback = await buildTestApp({ env: { ALLOWED_HOSTS: 'alerts.internal, Ops.Example' } });
    expect((await get(loopback, 'alerts.internal:8080')).statusCode).toBe(200);
    expect((await get(loopback, 'ops.example')).statusCode).toBe(200);
    expect((await get(loopback, 'other.example')).statusCode).toBe(421);

    const open = await buildTestApp({ env: { HOST: '0.0.0.0' } });
    expect((await get(open, 'alerts.example.com')).statusCode).toBe(200);
    const listed = await buildTestApp({
      env: { HOST: '0.0.0.0', ALLOWED_HOSTS: 'alerts.internal' },
    });
    expect((await get(listed, 'alerts.example.com')).statusCode).toBe(421);
    expect((await get(listed, 'alerts.internal')).statusCode).toBe(200);
  });

  it('reads the Host a browser cannot forge, never X-Forwarded-Host, even from a proxy of TRUST_PROXY', async () => {
    // A rebound page reaches the service from the browser's own machine, so its peer may be
    // a trusted loopback proxy's address, and X-Forwarded-Host is a header a page may set.
    const test = await buildTestApp({ env: { TRUST_PROXY: '127.0.0.1' } });
    const via = (host: string, forwardedHost: string) =>
      test.app.inject({
        method: 'GET',
        url: '/api/v1/incidents',
        remoteAddress: '127.0.0.1',
        headers: { host, 'x-forwarded-host': forwardedHost },
      });
    expect((await via('rebound.attacker.example', 'localhost')).statusCode).toBe(421);
    expect((await via('127.0.0.1:8080', 'alerts.example.com')).statusCode).toBe(200);
  });
});

const batch = (count: number) => ({
  version: '4',
  status: 'firing',
  alerts: Array.from({ length: count }, (_, index) => ({
    status: 'firing',
    labels: { alertname: 'Batch', namespace: 'big', pod: `pod-${index}`, severity: 'warning' },
  })),
});

describe.each(backends())('alerts per body on %s', (backend) => {
  it('a 1,001-alert body is refused 413 and nothing is recorded', async () => {
    const test = await buildTestApp({ backend });
    const answer = await postSigned(test.app, '/api/v1/webhooks/alertmanager', batch(1001));
    expect(answer.statusCode).toBe(413);
    expect(answer.json()).toEqual({
      detail: 'Too many alerts in one body: 1001 (limit 1000)',
      code: 'too_many_alerts',
    });
    expect(await incidentCount(test)).toBe(0);
  });

  it('MAX_ALERTS_PER_BODY moves the limit, on both alert routes', async () => {
    const test = await buildTestApp({ backend, env: { MAX_ALERTS_PER_BODY: '3' } });
    for (const url of ['/api/v1/webhooks/alerts', '/api/v1/webhooks/alertmanager']) {
      const refused = await postSigned(test.app, url, batch(4));
      expect(refused.statusCode, url).toBe(413);
      expect(refused.json().detail).toBe('Too many alerts in one body: 4 (limit 3)');
    }
    expect((await postSigned(test.app, '/api/v1/webhooks/alerts', batch(3))).statusCode).toBe(200);
    expect(await incidentCount(test)).toBe(3);
  });
});

describe('control characters in identifying fields', () => {
  it.each([
    ['body.target_resource', { alert_name: 'A', target_resource: 'db\u0000' }],
    ['body.alert_name', { alert_name: 'bell\u0007' }],
    ['body.namespace', { alert_name: 'A', namespace: 'ns\u007f' }],
    ['body.workload', { alert_name: 'A', workload: 'line\nbreak' }],
  ])('%s holding one is refused 422 naming the field', async (field, body) => {
    const test = await buildTestApp();
    const answer = await postSigned(test.app, '/api/v1/webhooks/alerts', body);
    expect(answer.statusCode).toBe(422);
    expect(answer.json()).toEqual({
      detail: `${field} must not contain control characters`,
      code: 'validation_failed',
    });
    expect(await incidentCount(test)).toBe(0);
  });

  it('label keys, Alertmanager identifying labels and signal targets are refused too; a tab is fine', async () => {
    const test = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const key = await postSigned(test.app, '/api/v1/webhooks/alerts', {
      alert_name: 'A',
      labels: { 'team\u001b[31m': 'x' },
    });
    expect(key.statusCode).toBe(422);
    expect(key.json().detail).toBe('body.labels has a key holding a control character');
    const label = await postSigned(test.app, '/api/v1/webhooks/alertmanager', {
      alerts: [{ labels: { alertname: 'A', pod: 'p\u0000' } }],
    });
    expect(label.statusCode).toBe(422);
    expect(label.json().detail).toBe(
      'body.alerts.0.labels.pod must not contain control characters',
    );
    const signal = await postSigned(test.app, '/api/v1/webhooks/signals', {
      source: 'prom',
      alert_name: 'A',
      severity: 'warning',
      target: 'bad\u0008',
    });
    expect(signal.statusCode).toBe(422);
    expect(signal.json().detail).toBe('body.target must not contain control characters');
    const tab = await postSigned(test.app, '/api/v1/webhooks/alerts', {
      alert_name: 'A',
      target_resource: 'col\tumn \u202e rtl',
    });
    expect(tab.statusCode).toBe(200);
  });
});
