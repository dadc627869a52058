import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

const URL = '/api/v1/webhooks/alertmanager';
const TOKENS = 'first-receiver-token,second-receiver-token';
const CONSOLE_TOKEN = 'console-token-for-reading';
/** Grafana's webhook contact point body, as its documentation shows it. */
const grafanaBody = readFileSync(
  new globalThis.URL('../fixtures/senders/grafana-webhook.json', import.meta.url),
  'utf8',
);

function alertmanagerBatch(alertname: string, namespace = 'receiver') {
  return {
    version: '4',
    status: 'firing',
    receiver: 'service',
    groupKey: '{}:{alertname="x"}',
    truncatedAlerts: 0,
    groupLabels: { alertname },
    commonLabels: { alertname },
    commonAnnotations: {},
    externalURL: 'http://alertmanager:9093',
    alerts: [
      {
        status: 'firing',
        labels: { alertname, namespace, pod: 'checkout-7d9f8b6c5-x2x4z', severity: 'critical' },
        annotations: { summary: 'Pod is restarting' },
        startsAt: '2026-11-24T01:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus:9090/graph',
        fingerprint: 'a1b2c3d4e5f60718',
      },
    ],
  };
}

function deliver(app: Parameters<typeof postSigned>[0], body: unknown, authorization?: string) {
  return postSigned(app, URL, body, undefined, authorization ? { authorization } : {});
}

describe.each(backends())('POST /webhooks/alertmanager on %s', (backend) => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      backend,
      env: {
        APP_ENV: 'prod',
        RECEIVER_TOKENS: TOKENS,
        WEBHOOK_SECRET: 'hmac-secret-of-the-signed-webhooks',
        CONSOLE_TOKEN,
        SIGNAL_CONSUMER: 'false',
      },
    }));
  });
  async function incidentsIn(namespace: string) {
    const response = await app.inject({
      url: `/api/v1/incidents?namespace=${namespace}`,
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    return response.json().items as Array<{ alert_name: string; namespace: string }>;
  }

  it('opens an incident from an Alertmanager batch with a receiver token (no signature)', async () => {
    const response = await deliver(
      app,
      alertmanagerBatch('KubePodCrashLooping', 'accepted'),
      'Bearer second-receiver-token',
    );
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'batch',
      results: [expect.objectContaining({ status: 'created', analysis_scheduled: true })],
    });
    expect(await incidentsIn('accepted')).toHaveLength(1);
  });

  it('answers a repeat as the signed intake does: the same incident converges', async () => {
    const batch = alertmanagerBatch('KubePodCrashLooping', 'repeat');
    const first = (await deliver(app, batch, 'Bearer first-receiver-token')).json();
    const second = (await deliver(app, batch, 'bearer first-receiver-token')).json();
    expect(second.results[0]).toMatchObject({
      status: 'converged',
      incident_id: first.results[0].incident_id,
      hit_count: 2,
    });
  });

  it('takes a batch in its order: firing alerts together, a resolved one after those before it', async () => {
    const batch = alertmanagerBatch('KubePodCrashLooping', 'in-order');
    const [firing] = batch.alerts;
    const pod = (name: string, status: string) => ({
      ...firing!,
      status,
      labels: { ...firing!.labels, pod: name },
    });
    // Three pods of one workload: one incident. Two fire, then one resolves, then one fires.
    batch.alerts = [
      pod('checkout-7d9f8b6c5-x2x4z', 'firing'),
      pod('checkout-7d9f8b6c5-b7c9d', 'firing'),
      pod('checkout-7d9f8b6c5-x2x4z', 'resolved'),
      pod('checkout-7d9f8b6c5-k8m2n', 'firing'),
    ];
    const response = await deliver(app, batch, 'Bearer first-receiver-token');
    expect(response.statusCode).toBe(200);
    const results = response.json().results as Array<Record<string, unknown>>;
    expect(results.map((result) => result.status)).toEqual([
      'created',
      'converged',
      'resolved',
      'converged',
    ]);
    // The resolved alert resolved the incident the two before it made; the last one reopened
    // it (CONTRACT, Incident lifecycle), which it could not have done before the resolve.
    const incident = results[0]!.incident_id;
    expect(results.map((result) => result.incident_id)).toEqual([
      incident,
      incident,
      incident,
      incident,
    ]);
    expect(results[1]).toMatchObject({ hit_count: 2 });
    expect(results[3]).toMatchObject({ hit_count: 3 });
    const timeline = await app.inject({
      url: `/api/v1/incidents/${incident}`,
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    });
    expect(timeline.json()).toMatchObject({ status: 'open', reopen_count: 1 });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'Bearer not-a-receiver-token'],
    ['a token that only starts like one', 'Bearer first-receiver-token-and-more'],
    ['the token under another scheme', 'Basic first-receiver-token'],
    ['both tokens joined', `Bearer ${TOKENS}`],
  ])('refuses %s with 401 "Invalid receiver token" and records nothing', async (_, auth) => {
    const response = await deliver(app, alertmanagerBatch('Refused', 'refused'), auth);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      detail: 'Invalid receiver token',
      code: 'receiver_token_invalid',
    });
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(await incidentsIn('refused')).toEqual([]);
  });

  it('checks the token before the body: an unauthenticated bad body is still a 401', async () => {
    const response = await deliver(app, '{"alerts": [', 'Bearer wrong');
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      detail: 'Invalid receiver token',
      code: 'receiver_token_invalid',
    });
  });

  it("takes Grafana's webhook body from its documentation: one incident per firing alert", async () => {
    const response = await deliver(app, grafanaBody, 'Bearer first-receiver-token');
    expect(response.statusCode).toBe(200);
    const { status, results } = response.json();
    expect(status).toBe('batch');
    expect(results).toHaveLength(2);
    expect(results.map((result: { status: string }) => result.status)).toEqual([
      'created',
      'created',
    ]);
    const names = (await incidentsIn('default')).map((incident) => incident.alert_name);
    expect(names).toEqual(expect.arrayContaining(['High memory usage', 'High CPU usage']));
  });

  it('takes a flat alert too, and judges bodies as /webhooks/alerts does', async () => {
    const flat = { alert_name: 'DiskFull', target_resource: 'db-0', namespace: 'flat' };
    const created = await deliver(app, flat, 'Bearer first-receiver-token');
    expect(created.json()).toMatchObject({ status: 'created' });
    const invalid = await deliver(app, { alerts: 'not a list' }, 'Bearer first-receiver-token');
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().detail).toMatch(/alerts/);
    const broken = await deliver(app, '{"alerts": [', 'Bearer first-receiver-token');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().detail).toMatch(/^Request body is not valid JSON/);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a vendor JSON type', 'application/vnd.alertmanager+json'],
    ['a form type', 'application/x-www-form-urlencoded'],
    ['no content type', undefined],
    ['a malformed type', 'a/b/c;;;'],
    ['a type with a charset', 'application/json; charset=utf-8'],
  ])('reads the body as JSON whatever it declares: %s', async (_name, contentType) => {
    const namespace = `type-${(contentType ?? 'none').replace(/[^a-z]/g, '')}`;
    const response = await app.inject({
      method: 'POST',
      url: URL,
      payload: JSON.stringify(alertmanagerBatch('AnyContentType', namespace)),
      headers: {
        authorization: 'Bearer first-receiver-token',
        ...(contentType ? { 'content-type': contentType } : {}),
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().results[0].status).toBe('created');
    expect(await incidentsIn(namespace)).toHaveLength(1);
  });

  it.each([
    ['an empty body', '', 'application/json', 'Request body is empty'],
    ['no body and no content type', undefined, undefined, 'Request body is empty'],
    ['text that is not JSON', 'alerts firing', 'text/plain', /^Request body is not valid JSON/],
    [
      'a body nested too deep',
      `${'['.repeat(100)}${']'.repeat(100)}`,
      'application/json',
      /deeper than 64 levels/,
    ],
  ])('answers %s with a 400 naming the problem', async (_name, payload, contentType, detail) => {
    const response = await app.inject({
      method: 'POST',
      url: URL,
      ...(payload === undefined ? {} : { payload }),
      headers: {
        authorization: 'Bearer first-receiver-token',
        ...(contentType ? { 'content-type': contentType } : {}),
      },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(detail);
  });

  it('refuses a compressed body by name (415), and takes one marked identity', async () => {
    const payload = JSON.stringify(alertmanagerBatch('Encoded', 'encoding'));
    const headers = {
      authorization: 'Bearer first-receiver-token',
      'content-type': 'application/json',
    };
    const gzipped = await app.inject({
      method: 'POST',
      url: URL,
      payload: gzipSync(payload),
      headers: { ...headers, 'content-encoding': 'gzip' },
    });
    expect(gzipped.statusCode).toBe(415);
    expect(gzipped.json()).toEqual({
      code: 'unsupported_content_encoding',
      detail: 'Unsupported content encoding: gzip; send the body uncompressed',
    });
    expect(await incidentsIn('encoding')).toHaveLength(0);
    const identity = await app.inject({
      method: 'POST',
      url: URL,
      payload,
      headers: { ...headers, 'content-encoding': 'identity' },
    });
    expect(identity.statusCode).toBe(200);
  });

  it('documents the bearer token as an OpenAPI security scheme of this route only', async () => {
    const document = (await app.inject('/openapi.json')).json();
    expect(document.components.securitySchemes.receiverToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const receiver = document.paths['/api/v1/webhooks/alertmanager'].post;
    expect(receiver.security).toEqual([{ receiverToken: [] }]);
    expect(Object.keys(receiver.responses)).toEqual(['200', '400', '401', '413', '415', '422']);
    expect(document.paths['/api/v1/webhooks/alerts'].post.security).toBeUndefined();
  });

  it('does not open the signed webhook to a receiver token', async () => {
    const response = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      alertmanagerBatch('Signed', 'signed-only'),
      undefined,
      { authorization: 'Bearer first-receiver-token' },
    );
    expect(response.statusCode).toBe(401);
    expect(response.json().detail).toMatch(/^HMAC verification failed/);
  });
});

describe('POST /webhooks/alertmanager without RECEIVER_TOKENS', () => {
  it('refuses every delivery in prod: 401 "Receiver tokens are not configured"', async () => {
    const { app } = await buildTestApp({ env: { APP_ENV: 'prod', SIGNAL_CONSUMER: 'false' } });
    for (const auth of [undefined, 'Bearer anything']) {
      const response = await deliver(app, alertmanagerBatch('Unconfigured'), auth);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        detail: 'Receiver tokens are not configured',
        code: 'receiver_tokens_missing',
      });
      expect(response.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it.each(['development', 'test', 'staging'])(
    'accepts unauthenticated deliveries in %s',
    async (appEnv) => {
      const { app } = await buildTestApp({ env: { APP_ENV: appEnv, SIGNAL_CONSUMER: 'false' } });
      const response = await deliver(app, alertmanagerBatch('Open', appEnv));
      expect(response.statusCode).toBe(200);
      expect(response.json().results[0].status).toBe('created');
    },
  );

  it('treats a list of only commas as unset', async () => {
    const { app } = await buildTestApp({
      env: { APP_ENV: 'prod', RECEIVER_TOKENS: ' , ', SIGNAL_CONSUMER: 'false' },
    });
    const response = await deliver(app, alertmanagerBatch('Commas'), 'Bearer ,');
    expect(response.json()).toEqual({
      detail: 'Receiver tokens are not configured',
      code: 'receiver_tokens_missing',
    });
  });
});
