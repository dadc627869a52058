import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';

describe.each(backends())('liveness and readiness on %s', (backend) => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it('answers GET /api/v1/livez with 200 {status: ok}', async () => {
    const response = await app.inject('/api/v1/livez');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers GET /api/v1/readyz with 200 and one check per dependency', async () => {
    const response = await app.inject('/api/v1/readyz');
    expect(response.statusCode).toBe(200);
    const up = { status: 'up', latency_ms: expect.any(Number) };
    expect(response.json()).toEqual({
      status: 'ready',
      checks: backend === 'embedded' ? { database: up } : { database: up, redis: up },
    });
  });

  it('answers 503 naming the dependency whose check fails', async () => {
    const { store } = app.services;
    const ping = store.ping;
    store.ping = () => Promise.reject(new Error('connection refused'));
    try {
      const response = await app.inject('/api/v1/readyz');
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({
        status: 'not_ready',
        failing: ['database'],
        checks: { database: { status: 'down', error: 'unavailable' } },
      });
    } finally {
      store.ping = ping;
    }
  });
});
