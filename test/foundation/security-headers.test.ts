import http from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  API_SECURITY_HEADERS,
  PAGE_HELMET_OPTIONS,
  recordHelmet,
} from '../../src/http/security-headers.js';
import { analyze, listen } from '../analysis/analysis-helpers.js';
import { buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';

/** The headers helmet itself puts on a real response of a plain node:http server. */
async function helmetsOwnHeaders(): Promise<Record<string, string>> {
  const secure = helmet(PAGE_HELMET_OPTIONS);
  const server = http.createServer((req, res) => secure(req, res, () => res.end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) {
      if (!['date', 'connection', 'keep-alive', 'content-length'].includes(name)) {
        headers[name] = value;
      }
    }
    return headers;
  } finally {
    server.close();
  }
}

const ALERT = {
  alert_name: 'HeaderCheck',
  severity: 'warning',
  namespace: 'ns',
  target_resource: 'svc',
};

/** What an API answer carries, written out here rather than read from the code under test. */
const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
};

describe('security headers (CONTRACT, Bad input)', () => {
  let app: TestApp['app'];
  let OVERSIZED: typeof ALERT & { message: string };
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
    OVERSIZED = { ...ALERT, message: 'x'.repeat(app.services.config.bodyLimitBytes) };
  });
  const formPost = (url: string) =>
    app.inject({
      method: 'POST',
      url,
      payload: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  it.each([
    ['a JSON answer', 200, () => app.inject('/api/v1/webhooks/errtracker/health')],
    ['a 404', 404, () => app.inject('/api/v1/nowhere')],
    ['a 422', 422, () => postSigned(app, '/api/v1/webhooks/signals', {})],
    [
      'a 413 refused before the handler',
      413,
      () => postSigned(app, '/api/v1/webhooks/alerts', OVERSIZED),
    ],
    ['a 415 form post', 415, () => formPost('/api/v1/webhooks/alerts')],
    ['the OpenAPI document', 200, () => app.inject('/openapi.json')],
    ['the metrics', 200, () => app.inject('/metrics')],
    ['the API docs page', 200, () => app.inject('/docs/')],
    ['the redirect to the console', 302, () => app.inject('/')],
  ])('%s (%i) carries nosniff and no-referrer', async (_what, status, send) => {
    const response = await send();
    expect(response.statusCode).toBe(status);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
  });

  it('the API headers are these four', () => {
    expect(API_SECURITY_HEADERS).toEqual(API_HEADERS);
  });

  it.each([
    ['a JSON answer', 200, () => app.inject('/api/v1/webhooks/errtracker/health')],
    ['a 404', 404, () => app.inject('/api/v1/nowhere')],
    ['an accepted alert', 200, () => postSigned(app, '/api/v1/webhooks/alerts', ALERT)],
    ['a 413', 413, () => postSigned(app, '/api/v1/webhooks/alerts', OVERSIZED)],
    ['the metrics', 200, () => app.inject('/metrics')],
  ])('%s carries the API headers and no page headers', async (_what, status, send) => {
    const response = await send();
    expect(response.statusCode).toBe(status);
    for (const [name, value] of Object.entries(API_HEADERS)) {
      expect(response.headers[name], name).toBe(value);
    }
    expect(response.headers['x-frame-options']).toBeUndefined();
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('pages and their assets carry each header helmet sets, as helmet sets it (recorded once)', async () => {
    const expected = await helmetsOwnHeaders();
    expect(Object.keys(expected).length).toBeGreaterThan(8);
    const page = await app.inject('/docs/');
    const asset = [...page.body.matchAll(/src="([^"]+\.js)"/g)].map((match) => match[1]!)[0];
    expect(asset).toBeDefined();
    const docs = [page, await app.inject(new URL(asset!, 'http://service/docs/').pathname)];
    for (const response of docs) expect(response.statusCode).toBe(200);
    // The console answers 200 when built and 503 when not; either way from its page scope.
    for (const response of [...docs, await app.inject('/console/'), await app.inject('/')]) {
      for (const [name, value] of Object.entries(expected)) {
        expect(response.headers[name], name).toBe(value);
      }
    }
  });

  it('the live feed, an event stream that writes its own head, carries the API headers too', async () => {
    const { app: listening } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    await listening.listen({ port: 0, host: '127.0.0.1' });
    const feed = await openFeed(listening);
    try {
      expect(feed.response.headers.get('content-type')).toMatch(/text\/event-stream/);
      for (const [name, value] of Object.entries(API_HEADERS)) {
        expect(feed.response.headers.get(name), name).toBe(value);
      }
    } finally {
      await feed.close();
    }
  });

  it("an analysis task's event stream carries the API headers too", async () => {
    const { app: listening } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const taskId = (
      await analyze(listening, { severity: 'P3', affected_services: ['cart'] })
    ).json().task_id as string;
    const base = await listen(listening);
    const abort = new AbortController();
    try {
      const stream = await fetch(`${base}/api/v1/agents/stream/${taskId}`, {
        signal: abort.signal,
      });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/text\/event-stream/);
      for (const [name, value] of Object.entries(API_HEADERS)) {
        expect(stream.headers.get(name), name).toBe(value);
      }
    } finally {
      abort.abort();
    }
  });

  it('a policy computed per request is refused rather than recorded once', () => {
    const nonce = () => "'nonce-x'";
    expect(() =>
      recordHelmet({
        contentSecurityPolicy: {
          directives: {
            ...PAGE_HELMET_OPTIONS.contentSecurityPolicy.directives,
            scriptSrc: ["'self'", nonce],
          },
        },
      }),
    ).toThrow(/per-request/);
  });

  it('an HTML page carries a policy that allows only the own origin', async () => {
    const page = await app.inject('/docs/');
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const policy = String(page.headers['content-security-policy']);
    const directives = new Map(
      policy.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    for (const values of directives.values()) {
      for (const value of values) expect(value).toMatch(/^('self'|'none'|data:)$/);
    }
  });

  it('the API docs still load: every script and stylesheet is same-origin and served', async () => {
    const page = await app.inject('/docs/');
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, 'http://service/docs/').pathname;
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(200);
    }
  });
});
