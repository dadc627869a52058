import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { deliver, issueAlert, TRACKER_URL } from './tracker-delivery.js';

const SECRET = 'tracker-client-secret';

describe('error-tracker bodies that cannot be read safely are empty objects (spec, step 1)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { ERRTRACKER_CLIENT_SECRET: SECRET, SIGNAL_CONSUMER: 'false' },
    }));
  });
  const events = async () =>
    (await app.inject('/api/v1/external-alert-events?limit=200')).json().items.length;

  it('a triggered issue holding a 10,000-deep array is ignored and nothing is stored', async () => {
    const body = JSON.stringify(issueAlert('deep-1')).replace(
      '"data":{',
      `"data":{"deep":${'['.repeat(10_000)}${']'.repeat(10_000)},`,
    );
    const before = await events();
    const response = await deliver(app, body, { secret: SECRET });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ignored', reason: 'action is not triggered' });
    expect(await events()).toBe(before);
    expect((await app.inject('/api/v1/external-alert-events')).statusCode).toBe(200);
  });

  it('a body that is not valid UTF-8 is ignored, not stored altered', async () => {
    const text = JSON.stringify(issueAlert('utf8-1'));
    const body = Buffer.concat([
      Buffer.from(text.slice(0, 20)),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(text.slice(20)),
    ]);
    const before = await events();
    const response = await app.inject({
      method: 'POST',
      url: TRACKER_URL,
      payload: body,
      headers: {
        'content-type': 'application/json',
        'errtracker-hook-signature': crypto.createHmac('sha256', SECRET).update(body).digest('hex'),
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ignored', reason: 'action is not triggered' });
    expect(await events()).toBe(before);
  });

  it.each(['a/b/c;;;', 'application/json, text/plain', 'text/plain'])(
    'a content type that does not parse (%s) does not stop a valid delivery',
    async (contentType) => {
      const body = JSON.stringify(issueAlert(`ct-${contentType.length}`, { level: 'warning' }));
      const response = await deliver(app, body, {
        secret: SECRET,
        headers: { 'content-type': contentType },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().status).toBe('ignored');
      expect(response.json().reason).toBe('level warning does not require analysis');
    },
  );
});
