import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { closedWithin, rawConnect } from '../helpers/raw-http.js';
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
