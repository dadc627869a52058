import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { compareFeedIds } from '../../src/ports/event-feed.js';
import { type Backend, backends, postSigned } from '../helpers/build-app.js';
import { type FeedFrame, listeningForFeed, openFeed } from '../helpers/feed-client.js';
import { atFileEnd } from '../helpers/file-end.js';
import { type RawConnection, rawConnect } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Under races, crashes and abuse: "A client that reads its stream as fast as the
 * loopback allows receives every event of a 1,000-alert body without being disconnected; a
 * client that falls behind is disconnected only when it is more than 10,000 events behind,
 * and can resume with `Last-Event-ID` from any of the last 10,000 events."
 */

const KEPT = 10_000;

async function listening(backend: Backend) {
  return (await listeningForFeed(backend)).app;
}

function batchOf(count: number, namespace: string) {
  return {
    version: '4',
    status: 'firing',
    alerts: Array.from({ length: count }, (_, n) => ({
      status: 'firing',
      labels: { alertname: 'KubePodCrashLooping', namespace, pod: `pod-${n}` },
    })),
  };
}

/** Publishes `count` events straight into the feed, each about `size` bytes. */
async function publish(app: FastifyInstance, count: number, size: number): Promise<string[]> {
  const padding = 'x'.repeat(size);
  const ids: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, n) =>
      app.services.feed.publish({ type: 'test.burst', at: '', n: start + n, padding }),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/** A stream opened over a raw socket that reads nothing until `resume()`. */
async function stalledFeed(app: FastifyInstance): Promise<RawConnection> {
  const port = (app.server.address() as AddressInfo).port;
  const connection = await rawConnect(port);
  atFileEnd(() => {
    connection.socket.destroy();
  });
  connection.socket.write('GET /api/v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
  await waitFor(async () => (connection.received().includes(': feed open') ? true : undefined), {
    what: 'the stream open',
  });
  connection.socket.pause();
  return connection;
}

const burstEvents = (text: string) => text.split('"type":"test.burst"').length - 1;

describe.each(backends())('the live feed under bursts (%s)', (backend) => {
  it('a client reading as fast as it can receives every event of a 1,000-alert body and stays connected', async () => {
    const app = await listening(backend);
    const feed = await openFeed(app);
    atFileEnd(() => feed.close());
    expect(feed.response.status).toBe(200);

    const delivered = await postSigned(
      app,
      '/api/v1/webhooks/alertmanager',
      batchOf(1000, 'burst'),
    );
    expect(delivered.statusCode).toBe(200);
    const incidents = new Set<string>(
      delivered.json().results.map((r: { incident_id: string }) => r.incident_id),
    );
    expect(incidents.size).toBe(1000);

    const created = (frames: FeedFrame[]) =>
      frames.filter(
        (f) => f.event.type === 'incident.created' && incidents.has(String(f.event.incident_id)),
      );
    await waitFor(
      async () => (created(feed.frames).length === 1000 || feed.ended() ? true : undefined),
      {
        what: 'the 1,000 incidents on the feed',
        timeoutMs: 60_000,
      },
    );
    expect(feed.ended()).toBe(false);
    expect(new Set(created(feed.frames).map((f) => f.event.incident_id)).size).toBe(1000);
    // Each event once, in feed order.
    const ids = feed.frames.map((f) => f.id);
    expect(ids.every((id, i) => i === 0 || compareFeedIds(ids[i - 1]!, id) < 0)).toBe(true);

    // Still open: the next event arrives on the same stream.
    const after = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'AfterTheBurst',
        target_resource: 'after',
      })
    ).json();
    await feed.until(
      (frames) => frames.some((f) => f.event.incident_id === after.incident_id),
      'the event after the burst',
    );
    expect(feed.ended()).toBe(false);
  }, 120_000);

  it('keeps a client that reads nothing connected up to 10,000 events behind, and gives it all of them', async () => {
    const app = await listening(backend);
    const stalled = await stalledFeed(app);
    await publish(app, KEPT, 300);
    // Whatever the kernel's buffers took, the rest waits for the client.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stalled.isClosed()).toBe(false);
    stalled.socket.resume();
    await waitFor(async () => (burstEvents(stalled.received()) === KEPT ? true : undefined), {
      what: `the ${KEPT} events read late`,
      timeoutMs: 60_000,
    });
    expect(stalled.isClosed()).toBe(false);
  }, 120_000);

  it('ends the stream of a client more than 10,000 events behind', async () => {
    const app = await listening(backend);
    const stalled = await stalledFeed(app);
    // Events of 1 KB, so the kernel's socket buffers hold a few thousand at most: well past
    // 10,000 wait in the service.
    await publish(app, 2 * KEPT, 1000);
    await waitFor(
      async () => {
        // Reading lets the closing reach the client; what it then reads ends early.
        stalled.socket.resume();
        return stalled.isClosed() ? true : undefined;
      },
      { what: 'the stream ended', timeoutMs: 60_000 },
    );
    expect(burstEvents(stalled.received())).toBeLessThan(2 * KEPT);
  }, 120_000);

  it('resumes with Last-Event-ID from the oldest of the last 10,000 events', async () => {
    const app = await listening(backend);
    const ids = await publish(app, KEPT + 500, 50);
    const oldestKept = ids[ids.length - KEPT]!;
    const resumed = await openFeed(app, { 'last-event-id': oldestKept });
    atFileEnd(() => resumed.close());
    await waitFor(async () => (resumed.frames.length >= KEPT - 1 ? true : undefined), {
      what: 'the replay of 9,999 events',
    });
    expect(resumed.frames.map((f) => f.id)).toEqual(ids.slice(ids.length - KEPT + 1));
    expect(resumed.ended()).toBe(false);
  }, 120_000);
});
