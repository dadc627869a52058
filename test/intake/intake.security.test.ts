import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

const SECRET = 'intake-secret';
const signal = { source: 'grafana', alert_name: 'HighLatency', target: 'api-7d9f8b6c5-x2x4z' };

function deepArray(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

describe('signed webhooks refuse bodies that cannot be read safely (CONTRACT, Bad input)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { WEBHOOK_SECRET: SECRET, SIGNAL_CONSUMER: 'false' },
    }));
  });

  it.each(['/api/v1/webhooks/signals', '/api/v1/webhooks/alerts'])(
    '%s: invalid UTF-8 is a 400 and nothing is stored',
    async (url) => {
      const text = JSON.stringify({ ...signal, alert_name: 'KubePodCrashLooping', message: 'X' });
      const body = Buffer.concat([
        Buffer.from(text.slice(0, -3)),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(text.slice(-3)),
      ]);
      const before = (await app.inject('/api/v1/incidents')).json().items.length;
      const response = await signedBuffer(app, url, body);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        detail: 'Request body is not valid UTF-8',
        code: 'bad_body',
      });
      expect((await app.inject('/api/v1/incidents')).json().items.length).toBe(before);
    },
  );

  it.each(['/api/v1/webhooks/signals', '/api/v1/webhooks/alerts'])(
    '%s: nesting deeper than 64 levels is a 400 (10,000 levels answered 500 before)',
    async (url) => {
      for (const levels of [65, 10_000]) {
        const body = `{"source":"s","alert_name":"a","target":"t","labels":{"deep":${deepArray(levels - 2)}}}`;
        const response = await postSigned(app, url, body, SECRET);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({
          code: 'bad_body',
          detail: 'Request body nests arrays and objects deeper than 64 levels',
        });
      }
    },
  );

  it('64 levels are still accepted', async () => {
    const body = `{"source":"s","alert_name":"a","target":"t","labels":{"deep":${deepArray(62)}}}`;
    expect((await postSigned(app, '/api/v1/webhooks/signals', body, SECRET)).statusCode).toBe(200);
  });

  it('brackets inside strings do not count as nesting', async () => {
    const body = JSON.stringify({ ...signal, message: `${'['.repeat(500)}\\"{{{` });
    expect((await postSigned(app, '/api/v1/webhooks/signals', body, SECRET)).statusCode).toBe(200);
  });

  it.each([
    [
      'alert_name',
      { alert_name: 'x'.repeat(1025) },
      'body.alert_name must be at most 1024 characters',
    ],
    [
      'alert_type',
      { alert_type: 'x'.repeat(1025) },
      'body.alert_type must be at most 1024 characters',
    ],
    [
      'target_resource',
      { alert_name: 'A', target_resource: 'x'.repeat(1025) },
      'body.target_resource must be at most 1024 characters',
    ],
    [
      'namespace',
      { alert_name: 'A', namespace: 'x'.repeat(1025) },
      'body.namespace must be at most 1024 characters',
    ],
    [
      'workload',
      { alert_name: 'A', workload: 'x'.repeat(1025) },
      'body.workload must be at most 1024 characters',
    ],
    [
      'source',
      { alert_name: 'A', source: 'x'.repeat(1025) },
      'body.source must be at most 1024 characters',
    ],
    [
      'a label key',
      { alert_name: 'A', labels: { ['k'.repeat(1025)]: 'v' } },
      'body.labels has a key longer than 1024 characters',
    ],
    [
      'an annotation key',
      { alert_name: 'A', annotations: { ['k'.repeat(1025)]: 'v' } },
      'body.annotations has a key longer than 1024 characters',
    ],
  ])('a flat alert with an over-long %s is a 422 naming the field', async (_what, body, detail) => {
    const response = await postSigned(app, '/api/v1/webhooks/alerts', body, SECRET);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ detail, code: 'validation_failed' });
  });

  it('1024 characters are accepted', async () => {
    const response = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      { alert_name: 'x'.repeat(1024), namespace: 'n'.repeat(1024) },
      SECRET,
    );
    expect(response.statusCode).toBe(200);
  });

  it.each([
    [
      'target',
      { ...signal, target: 'x'.repeat(1025) },
      'body.target must be at most 1024 characters',
    ],
    [
      'alert_name',
      { ...signal, alert_name: 'x'.repeat(1025) },
      'body.alert_name must be at most 1024 characters',
    ],
    [
      'source',
      { ...signal, source: 'x'.repeat(1025) },
      'body.source must be at most 1024 characters',
    ],
    [
      'namespace',
      { ...signal, namespace: 'x'.repeat(1025) },
      'body.namespace must be at most 1024 characters',
    ],
    [
      'a label key',
      { ...signal, labels: { ['k'.repeat(1025)]: 1 } },
      'body.labels has a key longer than 1024 characters',
    ],
  ])('a signal with an over-long %s is a 422 naming the field', async (_what, body, detail) => {
    const response = await postSigned(app, '/api/v1/webhooks/signals', body, SECRET);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ detail, code: 'validation_failed' });
  });

  it('an Alertmanager batch with an over-long label key or alert name is a 422', async () => {
    const key = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      { alerts: [{ labels: { alertname: 'A', ['k'.repeat(1025)]: 'v' } }] },
      SECRET,
    );
    expect(key.statusCode).toBe(422);
    expect(key.json().detail).toBe('body.alerts.0.labels has a key longer than 1024 characters');
    const name = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      { alerts: [{ labels: { alertname: 'x'.repeat(1025) } }] },
      SECRET,
    );
    expect(name.statusCode).toBe(422);
    expect(name.json().detail).toBe(
      'body.alerts.0.labels.alertname must be at most 1024 characters',
    );
  });

  it('keeps __proto__ and constructor label keys as ordinary labels', async () => {
    const body = `{"alert_name":"ProtoLabels","namespace":"proto","labels":{"__proto__":"x","constructor":"y","team":"z"}}`;
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', body, SECRET)).json();
    const incident = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
    expect(Object.keys(incident.labels).sort()).toEqual(['__proto__', 'constructor', 'team']);
    expect(incident.labels.team).toBe('z');
    expect(Object.getOwnPropertyDescriptor(incident.labels, '__proto__')?.value).toBe('x');
  });
});

function signedBuffer(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  url: string,
  body: Buffer,
) {
  return app.inject({
    method: 'POST',
    url,
    payload: body,
    headers: {
      'content-type': 'application/json',
      'x-signature-256': `sha256=${crypto.createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  });
}

describe('one bad alert never fails its neighbours (CONTRACT, Bad input)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'an Alertmanager severity %j is an ordinary unknown severity, and 20 neighbours succeed',
    async (severity) => {
      const hostile = postSigned(app, '/api/v1/webhooks/alerts', {
        version: '4',
        alerts: [
          { status: 'firing', labels: { alertname: 'Hostile', severity, namespace: severity } },
        ],
      });
      const neighbours = Array.from({ length: 20 }, (_, index) =>
        postSigned(app, '/api/v1/webhooks/alerts', {
          alert_name: 'KubePodCrashLooping',
          namespace: `neighbour-${severity}-${index}`,
        }),
      );
      const [bad, ...good] = await Promise.all([hostile, ...neighbours]);
      expect(good.map((response) => response.statusCode)).toEqual(good.map(() => 200));
      expect(bad.statusCode).toBe(200);
      const incident = (
        await app.inject(`/api/v1/incidents/${bad.json().results[0].incident_id}`)
      ).json();
      // CONTRACT, Alert webhook: an unknown severity is P2.
      expect(incident.severity).toBe('P2');
    },
  );

  it('an alert named like an Object.prototype member is typed `custom`', async () => {
    for (const alertName of ['constructor', '__proto__', 'toString']) {
      const created = (
        await postSigned(app, '/api/v1/webhooks/alerts', {
          alert_name: alertName,
          namespace: 'proto-names',
        })
      ).json();
      const incident = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
      expect(incident.alert_type).toBe('custom');
    }
  });
});
