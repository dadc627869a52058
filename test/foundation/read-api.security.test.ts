import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { describeConsoleTokenGuard, type GuardedRoute } from '../helpers/security-checks.js';

const TOKEN = 'console-token-for-tests';

/** CONTRACT, Access: "The read API". */
const READ_API: GuardedRoute[] = [
  { method: 'GET', url: '/api/v1/incidents' },
  { method: 'GET', url: '/api/v1/incidents/inc-unknown' },
  { method: 'GET', url: '/api/v1/approvals' },
  { method: 'GET', url: '/api/v1/approvals/unknown' },
  { method: 'GET', url: '/api/v1/signals' },
  { method: 'GET', url: '/api/v1/operation-log' },
  { method: 'GET', url: '/api/v1/operation-log/verify' },
  { method: 'GET', url: '/api/v1/external-alert-events' },
  { method: 'GET', url: '/api/v1/external-alert-events/unknown' },
];

describeConsoleTokenGuard(
  'read API',
  TOKEN,
  READ_API,
  async () => (await buildTestApp({ env: { CONSOLE_TOKEN: TOKEN, SIGNAL_CONSUMER: 'false' } })).app,
);

describe('read API in prod without CONSOLE_TOKEN (CONTRACT, Access)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { APP_ENV: 'prod', SIGNAL_CONSUMER: 'false' } }));
  });

  it.each(READ_API)('$method $url answers 403 naming the setting', async (route) => {
    const response = await app.inject({ method: route.method, url: route.url });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      detail: 'Set CONSOLE_TOKEN to use the read API in prod',
      code: 'read_api_closed',
    });
  });

  it.each([
    '/api/v1/webhooks/errtracker/health',
    '/api/v1/chatops/health',
    '/api/v1/agents/javascript-package-inventory',
    '/metrics',
    '/openapi.json',
  ])('the spec endpoint %s keeps working', async (url) => {
    const response = await app.inject(url);
    expect([200, 404]).toContain(response.statusCode);
    expect(response.statusCode).not.toBe(403);
  });

  it('a signed webhook still takes deliveries (its own signature guards it)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/errtracker/error',
      payload: { action: 'resolved' },
    });
    // prod without ERRTRACKER_CLIENT_SECRET: the tracker's own 401, not the read API's 403.
    expect(response.statusCode).toBe(401);
    expect(response.json().detail).toBe('Errtracker client secret is not configured');
  });
});

describe('read API outside prod without CONSOLE_TOKEN', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { APP_ENV: 'staging', SIGNAL_CONSUMER: 'false' } }));
  });
  it.each(READ_API.filter((route) => !route.url.includes('unknown')))(
    '$method $url is open',
    async (route) => {
      expect((await app.inject({ method: route.method, url: route.url })).statusCode).toBe(200);
    },
  );
});
