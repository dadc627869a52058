import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCrossSite } from '../../src/http/cross-site.js';
import { buildTestApp } from '../helpers/build-app.js';

/**
 * CONTRACT, Under races, crashes and abuse (Cross-site requests): a state-changing request
 * carrying `Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` whose host differs
 * from its `Host`, is refused with 403 before anything is done, on every route, with or
 * without a body.
 */

const HOST = '127.0.0.1:8080';

/** What a page on another origin sends, as browsers send it. */
const CROSS_SITE_HEADERS: [string, Record<string, string>][] = [
  ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
  ['an Origin of another host', { origin: 'http://evil.example' }],
  ['an Origin of another port on the same host', { origin: 'http://127.0.0.1:9090' }],
  ['Origin: null (a sandboxed frame)', { origin: 'null' }],
  [
    'a same-origin Origin with Sec-Fetch-Site: cross-site',
    { origin: `http://${HOST}`, 'sec-fetch-site': 'cross-site' },
  ],
];

interface Route {
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: object;
}

const ROUTES: Route[] = [
  { method: 'POST', url: '/api/v1/heartbeats/csrf-beat' },
  { method: 'POST', url: '/api/v1/heartbeats/csrf-beat', payload: { timeout_seconds: 10 } },
  { method: 'DELETE', url: '/api/v1/heartbeats/kept' },
  {
    method: 'POST',
    url: '/api/v1/webhooks/alerts',
    payload: {
      alert_name: 'CsrfAlert',
      severity: 'critical',
      source: 'prometheus',
      target_resource: 'checkout-0',
      namespace: 'shop',
    },
  },
  { method: 'POST', url: '/api/v1/agents/agent-log-controlled-writeback-dispatch' },
  { method: 'POST', url: '/api/v1/agents/chatops-alert-monitoring-live-receipt-apply' },
  {
    method: 'POST',
    url: '/api/v1/alertmanager/api/v2/silences',
    payload: {
      matchers: [{ name: 'alertname', value: 'CsrfAlert', isRegex: false }],
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3_600_000).toISOString(),
      createdBy: 'csrf',
      comment: 'csrf',
    },
  },
  { method: 'DELETE', url: '/api/v1/alertmanager/api/v2/silence/0' },
  { method: 'PUT', url: '/api/v1/heartbeats/csrf-beat' },
  { method: 'PATCH', url: '/api/v1/heartbeats/csrf-beat', payload: {} },
];

const CASES = ROUTES.flatMap((route) =>
  CROSS_SITE_HEADERS.map(([label, headers]) => ({ ...route, label, headers })),
);

describe('cross-site requests', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
    const kept = await app.inject({ method: 'POST', url: '/api/v1/heartbeats/kept' });
    expect(kept.statusCode).toBe(200);
  });
  afterAll(() => app?.close());

  it.each(CASES)('$method $url ($label) is refused with 403 and does nothing', async (route) => {
    const answer = await app.inject({
      method: route.method,
      url: route.url,
      headers: { host: HOST, ...route.headers },
      ...(route.payload ? { payload: route.payload } : {}),
    });
    expect(answer.statusCode, answer.body).toBe(403);
    expect(answer.json()).toEqual({
      detail: 'Cross-site request refused',
      code: 'cross_site_refused',
    });
  });

  it('left no trace of the refused requests', async () => {
    const heartbeats = (await app.inject('/api/v1/heartbeats')).json();
    expect(heartbeats.items.map((item: { name: string }) => item.name)).toEqual(['kept']);
    const incidents = (await app.inject('/api/v1/incidents')).json();
    expect(incidents.items).toEqual([]);
    const silences = (await app.inject('/api/v1/alertmanager/api/v2/silences')).json();
    expect(silences).toEqual([]);
    const log = (await app.inject('/api/v1/operation-log')).json();
    expect(log.items ?? log).toEqual([]);
  });

  it('reads from another site are not refused', async () => {
    const answer = await app.inject({
      url: '/api/v1/heartbeats',
      headers: { host: HOST, 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' },
    });
    expect(answer.statusCode).toBe(200);
  });

  it.each([
    ['no fetch metadata and no Origin (Alertmanager, a chat webhook, curl)', {}],
    ['Sec-Fetch-Site: same-origin (the console)', { 'sec-fetch-site': 'same-origin' }],
    [
      'Sec-Fetch-Site: same-origin and its Origin',
      { 'sec-fetch-site': 'same-origin', origin: `http://${HOST}` },
    ],
    ['Sec-Fetch-Site: none (typed by the user)', { 'sec-fetch-site': 'none' }],
    ['an Origin naming the Host with its scheme in capitals', { origin: `HTTP://${HOST}` }],
    // Behind a proxy that ends TLS, the page's origin is https and the service hears http.
    ['an Origin of the same host under https', { origin: `https://${HOST}` }],
  ])('a state-changing request with %s acts', async (_label, headers) => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/same-origin',
      headers: { host: HOST, ...headers },
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });
});

describe('isCrossSite', () => {
  it.each([
    // [Sec-Fetch-Site, Origin, Host, cross-site?]
    [undefined, undefined, 'a.example', false],
    ['same-origin', 'https://a.example', 'a.example', false],
    ['SAME-ORIGIN', undefined, 'a.example', false],
    [undefined, 'http://a.example', 'a.example:80', false],
    [undefined, 'https://a.example:443', 'a.example', false],
    [undefined, 'http://[::1]:8080', '[::1]:8080', false],
    [undefined, 'http://a.example', 'A.Example', false],
    ['Cross-Site', undefined, 'a.example', true],
    [' same-site ', undefined, 'a.example', true],
    [undefined, 'http://a.example:81', 'a.example', true],
    [undefined, 'http://b.example', 'a.example', true],
    [undefined, 'null', 'a.example', true],
    [undefined, 'http://a.example', undefined, true],
    [undefined, 'http://a.example', 'bad host/', true],
  ] as const)('Sec-Fetch-Site %s, Origin %s, Host %s: %s', (site, origin, host, expected) => {
    expect(isCrossSite(site, origin, host)).toBe(expected);
  });
});

describe('cross-site requests behind a proxy that rewrites Host', () => {
  let app: FastifyInstance;
  const PROXY = '10.0.0.1';
  // What nginx sends by default: the upstream's name in Host, the browser's in X-Forwarded-Host.
  const FROM_PROXY = {
    host: '127.0.0.1:8080',
    'x-forwarded-host': 'console.example',
    origin: 'https://console.example',
    'sec-fetch-site': 'same-origin',
  };

  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false', TRUST_PROXY: PROXY } }));
  });
  afterAll(() => app?.close());

  it('from a proxy of TRUST_PROXY, an Origin matching X-Forwarded-Host acts', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/behind-proxy',
      remoteAddress: PROXY,
      headers: FROM_PROXY,
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });

  it('from a proxy of TRUST_PROXY, an Origin of another host than X-Forwarded-Host is refused', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/behind-proxy',
      remoteAddress: PROXY,
      headers: { ...FROM_PROXY, origin: 'https://evil.example' },
    });
    expect(answer.statusCode, answer.body).toBe(403);
    expect(answer.json()).toEqual({
      detail: 'Cross-site request refused',
      code: 'cross_site_refused',
    });
  });

  it('from anyone else, X-Forwarded-Host is not read: the Origin is compared with Host', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/behind-proxy',
      remoteAddress: '192.0.2.1',
      headers: FROM_PROXY,
    });
    expect(answer.statusCode, answer.body).toBe(403);
    expect(answer.json()).toEqual({
      detail: 'Cross-site request refused',
      code: 'cross_site_refused',
    });
  });
});
