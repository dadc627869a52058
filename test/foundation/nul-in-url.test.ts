import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';

/**
 * A NUL in a path or query value used to reach PostgreSQL, which refuses it in text (a 500),
 * while SQLite cut the value short (`q=%00` matched every incident). Refused on every route.
 */
describe.each(backends())('a NUL in the URL on %s', (backend) => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it.each([
    '/api/v1/incidents?q=a%00b',
    '/api/v1/incidents?ids=%00',
    '/api/v1/incidents?namespace=x%00',
    '/api/v1/incidents/%00',
    '/api/v1/approvals?ids=%00',
    '/api/v1/agents/tasks?incident_id=%00',
    '/api/v1/heartbeats?cursor=%00',
    '/api/v1/incidents?cursor=a%00',
  ])('%s answers 400 with a detail', async (url) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      detail: 'The URL holds a NUL character (%00)',
      code: 'nul_in_url',
    });
  });

  it('leaves other percent-escapes alone', async () => {
    const response = await app.inject('/api/v1/incidents?q=50%25');
    expect(response.statusCode).toBe(200);
  });
});
