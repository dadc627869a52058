import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';

describe('HTTP basics', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it('answers a body over 1 MiB with 413 and a detail', async () => {
    const big = JSON.stringify({ alert_name: 'X', message: 'x'.repeat(1024 * 1024) });
    const response = await postSigned(app, '/api/v1/webhooks/alerts', big);
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({
      code: 'body_too_large',
      detail: 'Request body is larger than the limit of 1048576 bytes',
    });
  });

  it.each(['', '{', 'null', '"text"'])(
    'answers the body %j with a 4xx detail, never a 500',
    async (raw) => {
      const response = await postSigned(app, '/api/v1/webhooks/alerts', raw);
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(typeof response.json().detail).toBe('string');
    },
  );

  it('answers an unknown route with 404 and a detail', async () => {
    const response = await app.inject('/api/v1/nowhere?x=1');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      detail: 'No route for GET /api/v1/nowhere',
      code: 'route_not_found',
    });
  });

  it('serves Prometheus metrics with the spec counters and request durations by route', async () => {
    await postSigned(app, '/api/v1/webhooks/alerts', {
      alert_name: 'KubePodCrashLooping',
      target_resource: 'm',
    });
    const response = await app.inject('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const text = response.body;
    for (const name of [
      'alert_chain_success_total',
      'alert_chain_failure_total',
      'anomalies_total',
      'anomaly_frequency_24h',
      'http_request_duration_seconds_bucket',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/alerts_processed_total\{outcome="incident_created",source="webhook"\} 1/);
    expect(text).toMatch(
      /http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/webhooks\/alerts",status_code="200"\} \d+/,
    );
  });

  it('publishes OpenAPI 3 generated from the route schemas, and the docs page', async () => {
    const spec = (await app.inject('/openapi.json')).json();
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/webhooks/signals',
        '/api/v1/webhooks/alerts',
        '/api/v1/incidents',
      ]),
    );
    const signalBody =
      spec.paths['/api/v1/webhooks/signals'].post.requestBody.content['application/json'].schema;
    expect(signalBody.required).toEqual(['source', 'alert_name', 'target']);
    const docs = await app.inject('/docs/');
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
  });
});

describe('console token (CONTRACT, Access)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { CONSOLE_TOKEN: 'let-me-in', SIGNAL_CONSUMER: 'false' },
    }));
  });

  it.each(['/api/v1/incidents', '/api/v1/approvals', '/api/v1/signals'])(
    'guards %s',
    async (url) => {
      expect((await app.inject(url)).statusCode).toBe(401);
      const wrong = await app.inject({ url, headers: { authorization: 'Bearer nope' } });
      expect(wrong.json()).toEqual({ detail: 'Unauthorized', code: 'unauthorized' });
      const ok = await app.inject({ url, headers: { authorization: 'Bearer let-me-in' } });
      expect(ok.statusCode).toBe(200);
    },
  );

  it('leaves the spec webhooks unchanged', async () => {
    const response = await postSigned(app, '/api/v1/webhooks/signals', {
      source: 's',
      alert_name: 'a',
      target: 't',
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('readiness (CONTRACT, Running it)', () => {
  it('answers GET /api/v1/webhooks/errtracker/health with 200', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const response = await app.inject('/api/v1/webhooks/errtracker/health');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', webhook: 'errtracker' });
  });
});
