import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  postSigned,
  signBody,
  type TestApp,
  TestClock,
} from '../helpers/build-app.js';

const SECRET = 'current-secret';
const PREVIOUS = 'previous-secret';
const signal = { source: 'grafana', alert_name: 'HighLatency', target: 'api-7d9f8b6c5-x2x4z' };

describe('signed webhooks (spec, Authentication)', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { WEBHOOK_SECRET: SECRET, WEBHOOK_SECRET_PREVIOUS: PREVIOUS },
    }));
  });

  it.each(['/api/v1/webhooks/signals', '/api/v1/webhooks/alerts'])(
    'rejects %s without the header, with a bad format, or a wrong signature',
    async (url) => {
      const body = url.endsWith('signals') ? signal : { alert_name: 'KubePodCrashLooping' };
      const missing = await postSigned(app, url, body);
      expect(missing.statusCode).toBe(401);
      expect(missing.json()).toEqual({
        code: 'hmac_failed',
        detail: 'HMAC verification failed: Missing X-Signature-256 header',
      });
      const format = await postSigned(app, url, body, undefined, { 'x-signature-256': 'md5=abc' });
      expect(format.statusCode).toBe(401);
      expect(format.json().detail).toBe(
        'HMAC verification failed: Invalid signature format (expected sha256=...)',
      );
      const wrong = await postSigned(app, url, body, 'not-the-secret');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().detail).toBe('HMAC verification failed: Invalid signature');
      const good = await postSigned(app, url, body, SECRET);
      expect(good.statusCode).toBe(200);
    },
  );

  it('accepts the previous secret during a rotation', async () => {
    const response = await postSigned(app, '/api/v1/webhooks/signals', signal, PREVIOUS);
    expect(response.statusCode).toBe(200);
  });

  it('signs the raw bytes: a re-serialized body no longer matches', async () => {
    const raw = '{"source":"grafana", "alert_name":"X","target":"t"}';
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/signals',
      payload: raw,
      headers: {
        'content-type': 'application/json',
        'x-signature-256': signBody(SECRET, JSON.stringify(JSON.parse(raw))),
      },
    });
    expect(response.statusCode).toBe(401);
  });

  it('checks the signature before parsing: bad JSON unsigned is 401, signed is 400', async () => {
    const unsigned = await postSigned(app, '/api/v1/webhooks/alerts', '{nope');
    expect(unsigned.statusCode).toBe(401);
    const signed = await postSigned(app, '/api/v1/webhooks/alerts', '{nope', SECRET);
    expect(signed.statusCode).toBe(400);
    expect(signed.json().detail).toMatch(/^Request body is not valid JSON/);
  });

  it.each(['/api/v1/webhooks/signals', '/api/v1/webhooks/alerts'])(
    'reads a signed %s body as JSON whatever its type; a compressed one is 415',
    async (url) => {
      const body = url.endsWith('signals') ? signal : { alert_name: 'AnyContentType' };
      for (const type of ['a/b/c;;;', 'text/plain', 'application/json; charset=utf-8']) {
        const response = await postSigned(app, url, body, SECRET, { 'content-type': type });
        expect(response.statusCode).toBe(200);
      }
      const gzipped = await postSigned(app, url, body, SECRET, { 'content-encoding': 'gzip' });
      expect(gzipped.statusCode).toBe(415);
      expect(gzipped.json().detail).toBe(
        'Unsupported content encoding: gzip; send the body uncompressed',
      );
    },
  );

  it('upper-case hex signatures are accepted', async () => {
    const body = JSON.stringify(signal);
    const hex = signBody(SECRET, body).slice('sha256='.length).toUpperCase();
    const response = await postSigned(app, '/api/v1/webhooks/signals', body, undefined, {
      'x-signature-256': `sha256=${hex}`,
    });
    expect(response.statusCode).toBe(200);
  });
});

describe('replay protection (CONTRACT, Extensions)', () => {
  const clock = new TestClock(Date.parse('2026-11-23T08:00:00.000Z'));
  const nowSeconds = () => Math.floor(clock.now() / 1000);
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { WEBHOOK_SECRET: SECRET }, clock }));
  });
  let sequence = 0;

  /** A fresh body each call unless one is given, so only deliberate repeats repeat. */
  function timestamped(timestamp: number, headers: Record<string, string> = {}, body?: string) {
    const payload = body ?? JSON.stringify({ ...signal, message: `delivery ${++sequence}` });
    return {
      body: payload,
      response: app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/signals',
        payload,
        headers: {
          'content-type': 'application/json',
          'x-signature-timestamp': String(timestamp),
          'x-signature-256': signBody(SECRET, `${timestamp}.${payload}`),
          ...headers,
        },
      }),
    };
  }

  it('accepts a fresh timestamped delivery and rejects a stale one', async () => {
    expect((await timestamped(nowSeconds()).response).statusCode).toBe(200);
    const stale = await timestamped(nowSeconds() - 301).response;
    expect(stale.statusCode).toBe(401);
    expect(stale.json().detail).toBe('HMAC verification failed: Timestamp outside tolerance');
  });

  it('accepts up to 1 minute ahead and rejects beyond', async () => {
    expect((await timestamped(nowSeconds() + 60).response).statusCode).toBe(200);
    const ahead = await timestamped(nowSeconds() + 61).response;
    expect(ahead.statusCode).toBe(401);
    expect(ahead.json().detail).toBe('HMAC verification failed: Timestamp outside tolerance');
  });

  it('rejects the same signed delivery twice, whatever X-Delivery-Id says', async () => {
    const ts = nowSeconds();
    const first = timestamped(ts, { 'x-delivery-id': 'delivery-1' });
    expect((await first.response).statusCode).toBe(200);
    for (const headers of [
      { 'x-delivery-id': 'delivery-1' },
      { 'x-delivery-id': 'other' },
      {},
    ] as Record<string, string>[]) {
      const replay = await timestamped(ts, headers, first.body).response;
      expect(replay.statusCode).toBe(401);
      expect(replay.json().detail).toBe('HMAC verification failed: Replayed delivery');
    }
  });

  it('a distinct delivery with a reused X-Delivery-Id is not a replay', async () => {
    const ts = nowSeconds();
    expect((await timestamped(ts, { 'x-delivery-id': 'same' }).response).statusCode).toBe(200);
    expect((await timestamped(ts, { 'x-delivery-id': 'same' }).response).statusCode).toBe(200);
  });

  it('a future-dated delivery stays claimed for as long as its timestamp is accepted', async () => {
    const ts = nowSeconds() + 60;
    const first = timestamped(ts);
    expect((await first.response).statusCode).toBe(200);
    // 340 s later the timestamp is 280 s old: still within tolerance, so still a replay.
    clock.advance(340_000);
    const replay = await timestamped(ts, {}, first.body).response;
    expect(replay.json().detail).toBe('HMAC verification failed: Replayed delivery');
    clock.advance(21_000);
    const late = await timestamped(ts, {}, first.body).response;
    expect(late.json().detail).toBe('HMAC verification failed: Timestamp outside tolerance');
  });

  it('a timestamped body signed without the timestamp prefix fails', async () => {
    const body = JSON.stringify(signal);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/signals',
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-signature-timestamp': String(nowSeconds()),
        'x-signature-256': signBody(SECRET, body),
      },
    });
    expect(response.json().detail).toBe('HMAC verification failed: Invalid signature');
  });
});

describe('missing secret (spec, Authentication)', () => {
  it('skips verification outside prod', async () => {
    const { app } = await buildTestApp({ env: { APP_ENV: 'staging' } });
    const response = await postSigned(app, '/api/v1/webhooks/signals', signal);
    expect(response.statusCode).toBe(200);
  });

  it('rejects in prod', async () => {
    const { app } = await buildTestApp({ env: { APP_ENV: 'prod' } });
    const response = await postSigned(app, '/api/v1/webhooks/signals', signal, 'anything');
    expect(response.statusCode).toBe(401);
    expect(response.json().detail).toBe(
      'HMAC verification failed: Webhook secret is not configured',
    );
  });
});
