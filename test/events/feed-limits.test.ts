import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';
import { rawConnect, receivedText } from '../helpers/raw-http.js';

/** CONTRACT, Hostile clients: the live feed's caps, HEAD, and no replay without an id. */

const closers: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listening(env: Record<string, string> = {}, backend = backends()[0]) {
  const test = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false', ...env } });
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  return { app: test.app, port: (test.app.server.address() as AddressInfo).port };
}

async function feedFrom(app: Parameters<typeof openFeed>[0], headers = {}) {
  const feed = await openFeed(app, headers);
  closers.push(() => feed.close());
  return feed;
}

const alert = (target: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'feed-limits',
  target_resource: target,
});

describe('feed caps', () => {
  it('past EVENTS_MAX_CLIENTS a stream is refused 503 with Retry-After, and admitted again once one ends', async () => {
    const { app } = await listening({ EVENTS_MAX_CLIENTS: '3' });
    const open = [await feedFrom(app), await feedFrom(app), await feedFrom(app)];
    for (const feed of open) expect(feed.response.status).toBe(200);
    const refused = await feedFrom(app);
    expect(refused.response.status).toBe(503);
    expect(refused.response.headers.get('retry-after')).toMatch(/^\d+$/);
    const answer = await app.inject({ method: 'GET', url: '/api/v1/events' });
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toEqual({
      detail: 'Too many live feed streams open; retry later',
      code: 'feed_full',
    });
    await open[0]!.close();
    let admitted = await feedFrom(app);
    for (let tries = 0; admitted.response.status !== 200 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      admitted = await feedFrom(app);
    }
    expect(admitted.response.status).toBe(200);
  });

  it('one address holds at most 20 streams; another address still gets one', async () => {
    const { app, port } = await listening();
    for (let index = 0; index < 20; index++) {
      expect((await feedFrom(app)).response.status).toBe(200);
    }
    const refused = await feedFrom(app);
    expect(refused.response.status).toBe(503);
    expect(refused.response.headers.get('retry-after')).toMatch(/^\d+$/);

    const other = await rawConnect(port, '127.0.0.2');
    closers.push(() => {
      other.socket.destroy();
    });
    other.socket.write('GET /api/v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(await receivedText(other, ': feed open')).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('the per-address stream cap behind a proxy of TRUST_PROXY', () => {
  it('counts a forwarded client by its address whatever port the proxy appends', async () => {
    const { app } = await listening({ TRUST_PROXY: '127.0.0.1' });
    for (let index = 0; index < 20; index++) {
      const feed = await feedFrom(app, { 'x-forwarded-for': `203.0.113.5:${40_000 + index}` });
      expect(feed.response.status).toBe(200);
    }
    const refused = await feedFrom(app, { 'x-forwarded-for': '203.0.113.5:50000' });
    expect(refused.response.status).toBe(503);
    const other = await feedFrom(app, { 'x-forwarded-for': '203.0.113.6:50000' });
    expect(other.response.status).toBe(200);
  });
});

describe('HEAD /events', () => {
  it('answers at once with the stream headers and no body', async () => {
    const { app } = await listening({ EVENTS_MAX_CLIENTS: '1' });
    const head = await app.inject({ method: 'HEAD', url: '/api/v1/events' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream');
    expect(head.body).toBe('');
    // It held no stream: the one stream allowed is still free.
    expect((await feedFrom(app)).response.status).toBe(200);
  });
});

describe.each(backends())('no replay without Last-Event-ID on %s', (backend) => {
  it('a fresh stream starts with the events after it opened', async () => {
    const { app } = await listening({}, backend);
    const earlier = await feedFrom(app);
    await postSigned(app, '/api/v1/webhooks/alerts', alert('before-open'));
    await earlier.until((frames) => frames.length >= 2, 'the first incident on the feed');

    const fresh = await feedFrom(app);
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', alert('after-open'))).json();
    await fresh.until(
      (frames) => frames.some((frame) => frame.event.type === 'approval.created'),
      'the second incident on the fresh stream',
    );
    expect(fresh.frames.map((frame) => frame.event.incident_id)).toEqual([
      created.incident_id,
      created.incident_id,
    ]);

    // With the id of the first event, the missed events are replayed as before.
    const resumed = await feedFrom(app, { 'last-event-id': earlier.frames[0]!.id });
    await resumed.until((frames) => frames.length >= 3, 'the replay after the first event');
    expect(resumed.frames.map((frame) => frame.event.type)).toEqual([
      'approval.created',
      'incident.created',
      'approval.created',
    ]);
  });
});
