import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';
import { closedWithin, type RawConnection, rawConnect, receivedText } from '../helpers/raw-http.js';

/** CONTRACT, Hostile clients: slow clients, refusals, and the per-address connection cap. */

const RECEIVER_TOKEN = 'receiver-token-0123456789';

async function listening(env: Record<string, string> = {}) {
  const test = await buildTestApp({ env });
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...test, port: (test.app.server.address() as AddressInfo).port };
}

function post(path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ host: '127.0.0.1', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

const hold: RawConnection[] = [];
function kept(connection: RawConnection): RawConnection {
  hold.push(connection);
  return connection;
}

describe('slow clients are cut off', () => {
  it('a body trickled past REQUEST_TIMEOUT_MS is answered 408 and its connection closed', async () => {
    const { port } = await listening({ REQUEST_TIMEOUT_MS: '1500' });
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alerts', {
        'content-type': 'application/json',
        'content-length': 1000,
      }),
    );
    const trickle = setInterval(() => connection.socket.write('{'), 200);
    try {
      const closedAfter = await closedWithin(connection, 4000);
      expect(closedAfter).toBeGreaterThanOrEqual(1400);
      expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
      expect(connection.received()).toContain(
        '{"detail":"Request not received in time","code":"request_timeout"}',
      );
    } finally {
      clearInterval(trickle);
    }
  });

  it('headers that never finish are answered 408 within the header deadline', async () => {
    const { port } = await listening({ REQUEST_TIMEOUT_MS: '1000' });
    const connection = kept(await rawConnect(port));
    connection.socket.write('GET /api/v1/livez HTTP/1.1\r\nhost: 127.0.0.1\r\nx-slow: ');
    await closedWithin(connection, 3500);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
    // CONTRACT, Bad input: even an answer written outside Fastify carries these two.
    expect(connection.received()).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/);
    expect(connection.received()).toMatch(/\r\nReferrer-Policy: no-referrer\r\n/);
  });

  it('an idle keep-alive connection is closed after 5 s', async () => {
    const { port } = await listening();
    const connection = kept(await rawConnect(port));
    connection.socket.write('GET /api/v1/livez HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await receivedText(connection, '\r\n\r\n');
    const closedAfter = await closedWithin(connection, 8000);
    expect(closedAfter).toBeGreaterThanOrEqual(4500);
  }, 15_000);
});

describe('a refusal is answered at once and closes without reading the body', () => {
  const prodReceiver = { APP_ENV: 'prod', RECEIVER_TOKENS: RECEIVER_TOKEN };

  it('401 for a missing token, before any of the declared 100000 bytes, then the connection closes', async () => {
    const { port } = await listening(prodReceiver);
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alertmanager', {
        'content-type': 'application/json',
        'content-length': 100_000,
      }),
    );
    const answer = await receivedText(connection, 'Invalid receiver token', 2000);
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    await closedWithin(connection, 1000);
  });

  it('a 415 for a form post and a 403 from the closed read API also close without the body', async () => {
    const { port } = await listening({ APP_ENV: 'prod' });
    const form = kept(await rawConnect(port));
    form.socket.write(
      post('/api/v1/webhooks/signals', { 'content-type': 'text/plain', 'content-length': 100_000 }),
    );
    expect(await receivedText(form, 'send application/json', 2000)).toMatch(/^HTTP\/1\.1 415 /);
    await closedWithin(form, 1000);
    const closed = kept(await rawConnect(port));
    closed.socket.write(
      post('/api/v1/approvals/any/decision', {
        'content-type': 'application/json',
        'content-length': 100_000,
      }),
    );
    const answer = await receivedText(closed, 'Set CONSOLE_TOKEN', 2000);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    await closedWithin(closed, 1000);
  });

  // CONTRACT, Under races, crashes and abuse: "A refusal in prod that needs no body (POST
  // /chatops/test-push: 403) is answered at once without waiting for the declared body."
  it('the 403 of test-push in prod comes before any of the declared body, then the connection closes', async () => {
    const { port } = await listening({ APP_ENV: 'prod' });
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/chatops/test-push', {
        'content-type': 'application/json',
        'content-length': 100_000,
      }),
    );
    const answer = await receivedText(connection, 'Test push is disabled in production', 2000);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    await closedWithin(connection, 1000);
  });

  it('Expect: 100-continue gets the 401, never 100 Continue', async () => {
    const { port } = await listening(prodReceiver);
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alertmanager', {
        'content-type': 'application/json',
        'content-length': 900_000,
        expect: '100-continue',
      }),
    );
    await closedWithin(connection, 2000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('a signed webhook without its signature header gets the 401 before the body, never 100 Continue', async () => {
    const { port } = await listening({ WEBHOOK_SECRET: 'webhook-secret-0123456789' });
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alerts', {
        'content-type': 'application/json',
        'content-length': 100_000,
        expect: '100-continue',
      }),
    );
    await closedWithin(connection, 2000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(connection.received()).toContain(
      'HMAC verification failed: Missing X-Signature-256 header',
    );
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('Expect: 100-continue gets 413 for a declared body over the limit, never 100 Continue', async () => {
    const { port } = await listening({ ...prodReceiver, BODY_LIMIT_BYTES: '1000' });
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alertmanager', {
        authorization: `Bearer ${RECEIVER_TOKEN}`,
        'content-type': 'application/json',
        'content-length': 5000,
        expect: '100-continue',
      }),
    );
    await closedWithin(connection, 2000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received()).not.toContain('100 Continue');
  });

  it('Expect: 100-continue with the right token gets 100 Continue, then the answer', async () => {
    const { port } = await listening(prodReceiver);
    const body = JSON.stringify({ alert_name: 'HighLatency', severity: 'warning' });
    const connection = kept(await rawConnect(port));
    connection.socket.write(
      post('/api/v1/webhooks/alertmanager', {
        authorization: `Bearer ${RECEIVER_TOKEN}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      }),
    );
    await receivedText(connection, '100 Continue');
    connection.socket.write(body);
    const answer = await receivedText(connection, '"status":"created"');
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });
});

describe('one address cannot hold every connection', () => {
  it('past MAX_CONNECTIONS_PER_CLIENT its connections close at once; 127.0.0.2 still gets health', async () => {
    const { port } = await listening();
    const held: RawConnection[] = [];
    for (let index = 0; index < 300; index++) held.push(kept(await rawConnect(port)));
    // Each connection over the default cap of 256 is closed by the server right away.
    await closedWithin(held[299]!, 2000);
    const stillOpen = held.filter((connection) => !connection.isClosed()).length;
    expect(stillOpen).toBe(256);

    const other = kept(await rawConnect(port, '127.0.0.2'));
    other.socket.write(
      'GET /api/v1/webhooks/errtracker/health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
    );
    expect(await receivedText(other, '"status":"ok"')).toMatch(/^HTTP\/1\.1 200 /);
    const ready = kept(await rawConnect(port, '127.0.0.2'));
    ready.socket.write('GET /api/v1/readyz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(await receivedText(ready, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);

    // Once its connections close, the first address is served again.
    for (const connection of held) connection.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = kept(await rawConnect(port));
    again.socket.write('GET /api/v1/livez HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    expect(await receivedText(again, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('a proxy of TRUST_PROXY is not capped as one client', () => {
  it('its connections past MAX_CONNECTIONS_PER_CLIENT stay open and are answered; another address is capped', async () => {
    const { port } = await listening({ MAX_CONNECTIONS_PER_CLIENT: '3', TRUST_PROXY: '127.0.0.3' });
    const proxied: RawConnection[] = [];
    for (let index = 0; index < 6; index++) proxied.push(kept(await rawConnect(port, '127.0.0.3')));
    for (const connection of proxied) {
      connection.socket.write('GET /api/v1/livez HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    }
    for (const connection of proxied) {
      expect(await receivedText(connection, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    }

    const direct: RawConnection[] = [];
    for (let index = 0; index < 4; index++) direct.push(kept(await rawConnect(port, '127.0.0.4')));
    await closedWithin(direct[3]!, 2000);
    expect(direct.filter((connection) => !connection.isClosed()).length).toBe(3);
  });
});

afterAll(() => {
  for (const connection of hold.splice(0)) connection.socket.destroy();
});
