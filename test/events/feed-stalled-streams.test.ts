import http, { type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { compareFeedIds } from '../../src/ports/event-feed.js';
import { type Backend, backends } from '../helpers/build-app.js';
import { listeningForFeed } from '../helpers/feed-client.js';
import { atFileEnd } from '../helpers/file-end.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * CONTRACT, Under races, crashes and abuse ("The feed under bursts") and Hostile clients (500
 * streams): clients that resume from an old `Last-Event-ID` and then read nothing each hold
 * a bounded share of the service's memory, not their whole replay; each still receives every
 * event once it reads, and one left more than 10,000 events behind is ended.
 */

const KEPT = 10_000;
const STREAMS = 50;
/** Per stream, what may wait in its response: well above the some 33 KiB the service lets wait. */
const BUFFERED_CAP = 64 * 1024;

async function listening(backend: Backend) {
  const test = await listeningForFeed(backend);
  // The service's side of each stream, to see what waits in it for its client.
  const responses: ServerResponse[] = [];
  test.app.server.on('request', (request: http.IncomingMessage, response: ServerResponse) => {
    if (request.url?.startsWith('/api/v1/events')) responses.push(response);
  });
  return { app: test.app, responses };
}

/** Publishes `count` events of about 1 KB straight into the feed. */
async function publish(app: FastifyInstance, count: number): Promise<string[]> {
  const padding = 'x'.repeat(1000);
  const ids: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, n) =>
      app.services.feed.publish({ type: 'test.stalled', at: '', n: start + n, padding }),
    );
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/**
 * A stream resumed from `lastEventId` whose body is not read until `read()`: the client's
 * buffers fill and the rest waits in the service. Keeps only the ids it reads.
 */
async function stalledStream(port: number, localAddress: string, lastEventId: string) {
  const ids: string[] = [];
  let pending = '';
  const request = http.get({
    host: '127.0.0.1',
    port,
    localAddress,
    agent: false,
    path: '/api/v1/events',
    headers: { 'last-event-id': lastEventId },
  });
  request.on('error', () => undefined);
  atFileEnd(() => {
    request.destroy();
  });
  const response = await new Promise<http.IncomingMessage>((resolve) =>
    request.once('response', resolve),
  );
  response.on('error', () => undefined);
  expect(response.statusCode).toBe(200);
  response.setEncoding('utf8');
  return {
    ids,
    read() {
      response.on('data', (chunk: string) => {
        pending += chunk;
        const blocks = pending.split('\n\n');
        pending = blocks.pop() ?? '';
        for (const block of blocks) {
          const id = /^id: (.+)$/m.exec(block)?.[1];
          if (id) ids.push(id);
        }
      });
    },
    close() {
      request.destroy();
    },
  };
}

type Stream = Awaited<ReturnType<typeof stalledStream>>;

describe.each(backends())('streams that read nothing on %s', (backend) => {
  it('hold a bounded buffer each, receive every event once they read, and are ended past 10,000 behind', async () => {
    const { app, responses } = await listening(backend);
    const port = (app.server.address() as AddressInfo).port;
    const kept = await publish(app, KEPT);

    // 50 streams, from three addresses (20 per address at most), all resuming from the
    // oldest event kept: a replay of 9,999 events, some 10 MB, each.
    const streams = [];
    for (let index = 0; index < STREAMS; index++) {
      streams.push(await stalledStream(port, `127.0.0.${1 + Math.floor(index / 20)}`, kept[0]!));
    }
    expect(responses).toHaveLength(STREAMS);
    // Each client's buffers are full: the rest of its replay waits in the service (or the
    // stream was ended, which the checks below refuse).
    const settled = (r: ServerResponse) => r.writableLength > 0 || r.destroyed;
    await waitFor(async () => (responses.every(settled) ? true : undefined), {
      what: 'every stream stalled',
      timeoutMs: 60_000,
    });
    for (const response of responses) {
      expect(response.writableLength).toBeLessThan(BUFFERED_CAP);
      expect(response.destroyed).toBe(false);
    }

    // Live events while they read nothing: still bounded, still open.
    const live = await publish(app, 500);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const response of responses) {
      expect(response.writableLength).toBeLessThan(BUFFERED_CAP);
      expect(response.destroyed).toBe(false);
    }

    // All but five read now: each receives every event after its id, once, in order.
    const readers = streams.slice(5);
    const expected = [...kept.slice(1), ...live];
    for (const stream of readers) stream.read();
    await waitFor(
      async () =>
        readers.every((stream) => stream.ids.length >= expected.length) ? true : undefined,
      { what: 'every reader caught up', timeoutMs: 120_000 },
    );
    for (const stream of readers) {
      expect(stream.ids).toEqual(expected);
      stream.close();
    }

    // The five still reading nothing fall more than 10,000 events behind: ended.
    await publish(app, KEPT);
    const stalled = responses.slice(0, 5);
    await waitFor(async () => (stalled.every((r) => r.destroyed) ? true : undefined), {
      what: 'the five streams behind ended',
      timeoutMs: 60_000,
    });
  }, 240_000);

  it('reads the feed’s buffer once per process, not once per resuming stream', async () => {
    const { app } = await listening(backend);
    const port = (app.server.address() as AddressInfo).port;
    const kept = await publish(app, 200);
    // The real feed underneath, its reads counted.
    const feed = app.services.feed;
    const reads = { after: 0, latest: 0 };
    const { after, latest } = feed;
    feed.after = (...args) => {
      reads.after += 1;
      return after.apply(feed, args);
    };
    feed.latest = (...args) => {
      reads.latest += 1;
      return latest.apply(feed, args);
    };
    const streams: Array<{ stream: Stream; expected: string[] }> = [];
    for (let index = 0; index < 20; index++) {
      const stream = await stalledStream(port, '127.0.0.1', kept[index]!);
      stream.read();
      streams.push({ stream, expected: kept.slice(index + 1) });
    }
    await waitFor(
      async () =>
        streams.every(({ stream, expected }) => stream.ids.length >= expected.length)
          ? true
          : undefined,
      { what: 'every replay read' },
    );
    for (const { stream, expected } of streams) expect(stream.ids).toEqual(expected);
    expect(reads).toEqual({ after: 0, latest: 1 });
  });

  it('sends nothing up to a Last-Event-ID it has not heard yet, as from another replica', async () => {
    const { app } = await listening(backend);
    const port = (app.server.address() as AddressInfo).port;
    await publish(app, 1);
    // An id a little ahead of this replica: what the client read elsewhere.
    const ahead = `${Date.now() + 1000}-0`;
    const stream = await stalledStream(port, '127.0.0.1', ahead);
    stream.read();
    const before = await publish(app, 5);
    await waitFor(async () => (Date.now() > Number(ahead.split('-')[0]) + 5 ? true : undefined), {
      what: 'the id reached',
    });
    const after = await publish(app, 5);
    const expected = [...before, ...after].filter((id) => compareFeedIds(id, ahead) > 0);
    await waitFor(async () => (stream.ids.length >= expected.length ? true : undefined), {
      what: 'the events after the id',
    });
    expect(stream.ids).toEqual(expected);
  });
});
