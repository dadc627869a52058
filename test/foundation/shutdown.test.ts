import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { analyze, expertModel } from '../analysis/analysis-helpers.js';
import { type Backend, backends, buildTestApp } from '../helpers/build-app.js';
import { closedWithin, rawConnect, receivedText } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/wait-for.js';

describe.each(backends())('graceful shutdown on %s', (backend) => {
  it('finishes in-flight requests, keeps what it answered, then closes its connections', async () => {
    const first = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'true' } });
    const address = await first.app.listen({ port: 0, host: '127.0.0.1' });
    const send = (n: number) =>
      fetch(`${address}/api/v1/webhooks/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          source: 'shutdown',
          alert_name: `S${n}`,
          target: 't',
          severity: 'info',
        }),
      }).then(async (response) => ({
        status: response.status,
        body: (await response.json()) as { message_id?: string },
      }));
    const inFlight = Array.from({ length: 40 }, (_, n) => send(n));
    await Promise.race(inFlight);
    const closing = first.close();
    const results = await Promise.all(
      inFlight.map((p) => p.catch(() => ({ status: 0, body: {} as { message_id?: string } }))),
    );
    await closing;
    // Requests already accepted complete; later ones get 503, or no connection once the
    // listener is gone (status 0 here).
    for (const result of results) expect([200, 503, 0]).toContain(result.status);
    const answered = results
      .filter((r) => r.status === 200)
      .map((r) => r.body.message_id as string);
    expect(answered.length).toBeGreaterThan(0);
    await expect(first.app.services.store.ping()).rejects.toThrow();

    const second = await buildTestApp({ reuse: first, env: { SIGNAL_CONSUMER: 'false' } });
    const stored = (await second.app.inject('/api/v1/signals?limit=200')).json();
    const storedIds = new Set(stored.items.map((s: { id: string }) => s.id));
    for (const id of answered) expect(storedIds.has(id)).toBe(true);
  });
});

describe('a request that arrives while the service closes', () => {
  // The request's first line and host, then the rest once closing has begun.
  it.each([
    [
      'a webhook',
      'POST /api/v1/webhooks/signals',
      'content-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    ],
    ['the readiness probe, whose route declares a 503 of its own', 'GET /api/v1/readyz', '\r\n'],
    ['a path without a route', 'GET /api/v1/nowhere', '\r\n'],
    ['a page', 'GET /docs/', '\r\n'],
  ])(
    '%s is answered 503 with a detail, the security headers and Retry-After, and its connection closed',
    async (_what, line, rest) => {
      const test = await buildTestApp();
      await test.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = test.app.server.address() as AddressInfo;
      let accepted: Socket | undefined;
      test.app.server.once('connection', (socket: Socket) => {
        accepted = socket;
      });
      const connection = await rawConnect(port);
      let closing: Promise<void> | undefined;
      try {
        // Half a request, read by the server: the connection is busy, so closing keeps it open.
        connection.socket.write(`${line} HTTP/1.1\r\nhost: 127.0.0.1\r\n`);
        await waitFor(async () => ((accepted?.bytesRead ?? 0) > 0 ? true : undefined), {
          what: 'the server to read the first half',
        });
        closing = test.close();
        // The listener goes once the close hooks ran, the one that starts refusing among them.
        await waitFor(async () => (test.app.server.listening ? undefined : true), {
          what: 'the listener to close',
        });
        connection.socket.write(rest);
        await closedWithin(connection, 5000);
      } finally {
        connection.socket.destroy();
        await closing;
      }

      const answer = connection.received();
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      const [head, body] = answer.split('\r\n\r\n') as [string, string];
      expect(JSON.parse(body)).toEqual({
        code: 'shutting_down',
        detail: 'The service is shutting down; retry the request',
      });
      expect(head).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
      expect(head).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      // CONTRACT, Bad input: every response carries these two.
      expect(head).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      expect(head).toMatch(/\r\nreferrer-policy: no-referrer\r\n/i);
    },
  );
});

const MANUAL_ANALYSIS = {
  severity: 'P2',
  affected_services: ['cart'],
  alert_names: ['KubePodCrashLooping'],
};

/** A promise the test opens when it chooses. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

type Subscribe<T extends { subscribe: unknown }> = T['subscribe'];

/** Makes `port.subscribe` wait for `until` before subscribing; `asked` tells it was called. */
function holdSubscribe<T extends { subscribe: (...args: never[]) => Promise<unknown> }>(
  port: T,
  until: Promise<void>,
) {
  const subscribe = port.subscribe.bind(port);
  let asked = false;
  port.subscribe = (async (...args: Parameters<Subscribe<T>>) => {
    asked = true;
    await until;
    return subscribe(...args);
  }) as T['subscribe'];
  return () => asked;
}

/** The two event streams: the live feed, and an analysis task's (its experts held). */
const streams = {
  'the live feed': async (backend: Backend) => {
    const test = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    return {
      test,
      path: '/api/v1/events',
      opening: () => test.app.services.feed,
      firstFrame: ': feed open\n\n',
      done: async () => undefined,
    };
  },
  'an analysis stream': async (backend: Backend) => {
    const model = await expertModel({ held: true });
    const test = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: model.upstream.url },
    });
    const { task_id } = (await analyze(test.app, MANUAL_ANALYSIS)).json();
    return {
      test,
      path: `/api/v1/agents/stream/${task_id}`,
      opening: () => test.app.services.bus,
      firstFrame: '"type":"status"',
      done: async () => model.release(),
    };
  },
};

const STREAM_CASES = (Object.keys(streams) as (keyof typeof streams)[]).flatMap((which) =>
  (['open', 'still opening'] as const).map((when) => [which, when] as const),
);

/**
 * A stream is ended with its connection, so that an EventSource's reconnection opens a new
 * one (to a replica that stays) instead of being refused on this one and giving up.
 */
describe.each(backends())('event streams when the service closes, on %s', (backend) => {
  it.each(STREAM_CASES)(
    '%s, %s when closing begins, ends with its connection',
    async (which, when) => {
      const stream = await streams[which](backend);
      const { test } = stream;
      try {
        await test.app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = test.app.server.address() as AddressInfo;
        const subscribing = gate();
        const asked =
          when === 'still opening'
            ? holdSubscribe(stream.opening(), subscribing.opened)
            : undefined;
        const connection = await rawConnect(port);
        connection.socket.write(`GET ${stream.path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
        let closing: Promise<void>;
        if (asked) {
          await waitFor(async () => (asked() ? true : undefined), {
            what: 'the stream to subscribe',
          });
          closing = test.close();
          // The close hooks ran (the listener goes after them): the stream opens too late.
          await waitFor(async () => (test.app.server.listening ? undefined : true), {
            what: 'the listener to close',
          });
          subscribing.open();
        } else {
          await receivedText(connection, stream.firstFrame);
          closing = test.close();
        }
        // Well before both the close's grace period (10 s) and the keep-alive timeout (5 s).
        await closedWithin(connection, 2000);
        const answer = connection.received();
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer).toContain(stream.firstFrame);
        expect(answer.endsWith('\r\n0\r\n\r\n')).toBe(true);
        await closing;
      } finally {
        await stream.done();
      }
    },
  );
});
