import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import {
  capConnections,
  defaultMaxConnections,
  descriptorLimit,
} from '../../src/http/server-limits.js';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp } from '../helpers/build-app.js';
import { type RawConnection, rawConnect, receivedText } from '../helpers/raw-http.js';
import { startServerProcess } from '../helpers/server-process.js';

/**
 * CONTRACT, Under races, crashes and abuse (Descriptors): when open connections reach
 * MAX_CONNECTIONS (default 80 % of the descriptor limit), the connections idle longest are
 * closed to make room, so a new client's health check and alert are still answered.
 */

const held: RawConnection[] = [];
const dataDir = tempDir();
afterAll(() => {
  for (const connection of held.splice(0)) connection.socket.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function request(method: string, path: string, body?: string): string {
  const head = [`${method} ${path} HTTP/1.1`, 'host: 127.0.0.1'];
  if (body !== undefined) {
    head.push('content-type: application/json', `content-length: ${Buffer.byteLength(body)}`);
  }
  return `${head.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

describe('descriptors', () => {
  it('reads the soft open-file limit, and falls back where it cannot', () => {
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max open files            256                  4096                 files     ',
    ].join('\n');
    expect(descriptorLimit(() => limits)).toBe(256);
    expect(defaultMaxConnections(256)).toBe(204);
    expect(
      descriptorLimit(
        () => 'Max open files            unlimited            unlimited            files',
      ),
    ).toBe(1_048_576);
    expect(
      descriptorLimit(() => {
        throw new Error('no /proc here');
      }),
    ).toBe(1024);
  });

  it('with idle and slow-header connections from many addresses at the limit, a new client is still answered', async () => {
    // 256 descriptors, so MAX_CONNECTIONS is 204; 4 addresses × 100 idle connections, each
    // address under its own cap of 256, hold more than the process could open.
    const server = await startServerProcess(
      { PORT: '0', APP_ENV: 'staging', DATA_DIR: dataDir, SIGNAL_CONSUMER: 'false' },
      { descriptorLimit: 256 },
    );
    const port = Number(new URL(server.url).port);

    // A live feed stream, opened first: mid-answer, it is never the one closed.
    const stream = await rawConnect(port, '127.0.0.1');
    held.push(stream);
    stream.socket.write(request('GET', '/api/v1/events'));
    await receivedText(stream, 'HTTP/1.1 200');

    const idle: RawConnection[] = [];
    for (let address = 2; address <= 5; address++) {
      for (let index = 0; index < 100; index++) {
        const connection = await rawConnect(port, `127.0.0.${address}`).catch(() => undefined);
        if (!connection) continue;
        held.push(connection);
        idle.push(connection);
        // Half keep their headers unfinished; the other half never send a byte.
        if (index % 2) connection.socket.write('GET /api/v1/livez HTTP/1.1\r\nx-slow: ');
      }
    }

    const health = await rawConnect(port, '127.0.0.9');
    held.push(health);
    health.socket.write(request('GET', '/api/v1/webhooks/errtracker/health'));
    expect(await receivedText(health, '"status":"ok"', 10_000)).toMatch(/^HTTP\/1\.1 200 /);

    const ready = await rawConnect(port, '127.0.0.9');
    held.push(ready);
    ready.socket.write(request('GET', '/api/v1/readyz'));
    expect(await receivedText(ready, '"status":"ready"', 10_000)).toMatch(/^HTTP\/1\.1 200 /);

    const alert = await rawConnect(port, '127.0.0.9');
    held.push(alert);
    const body = JSON.stringify({ alert_name: 'DescriptorsHeld', severity: 'warning' });
    alert.socket.write(request('POST', '/api/v1/webhooks/alertmanager', body));
    expect(await receivedText(alert, '"status":"created"', 10_000)).toMatch(/^HTTP\/1\.1 200 /);

    // The ones idle longest went first; the newest idle ones and the stream are still open.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(idle[0]!.isClosed()).toBe(true);
    expect(idle.at(-1)!.isClosed()).toBe(false);
    expect(stream.isClosed()).toBe(false);
    expect(idle.filter((connection) => !connection.isClosed()).length).toBeLessThan(204);
    expect(server.output()).toContain(
      'open connections reached MAX_CONNECTIONS: closed the longest idle to make room',
    );
  }, 60_000);

  it('MAX_CONNECTIONS sets the cap: past it the longest idle close and a new client is answered', async () => {
    const test = await buildTestApp({ env: { MAX_CONNECTIONS: '20' } });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = test.app.server.address() as AddressInfo;
    const idle: RawConnection[] = [];
    for (let index = 0; index < 30; index++) {
      const connection = await rawConnect(port, `127.0.0.${2 + (index % 3)}`);
      held.push(connection);
      idle.push(connection);
    }
    const health = await rawConnect(port, '127.0.0.9');
    held.push(health);
    health.socket.write(request('GET', '/api/v1/livez'));
    expect(await receivedText(health, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 /);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const open = idle.filter((connection) => !connection.isClosed());
    // 20 at most, the client answered among them: the newest idle ones are what is left.
    expect(open.length).toBeLessThanOrEqual(19);
    expect(open).toEqual(idle.slice(idle.length - open.length));
  });
});

/** Server-side sockets of real loopback connections, handed out one by one. */
async function serverSockets(count: number): Promise<{ sockets: net.Socket[]; close(): void }> {
  const accepted: net.Socket[] = [];
  const clients: net.Socket[] = [];
  const pool = net.createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve) => pool.listen(0, '127.0.0.1', resolve));
  const { port } = pool.address() as AddressInfo;
  for (let index = 0; index < count; index++) {
    const client = net.connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    clients.push(client);
    await new Promise((resolve) => client.once('connect', resolve));
  }
  while (accepted.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    sockets: accepted,
    close() {
      for (const socket of [...accepted, ...clients]) socket.destroy();
      pool.close();
    },
  };
}

describe('the connection cap counts only connections still open', () => {
  it('a connection closed elsewhere, before its close event, takes no room: no live one is closed for it', async () => {
    const { sockets, close } = await serverSockets(4);
    try {
      const [oldest, closedElsewhere, newcomer, extra] = sockets as net.Socket[] as [
        net.Socket,
        net.Socket,
        net.Socket,
        net.Socket,
      ];
      const server = http.createServer();
      capConnections(server, 2);
      server.emit('connection', oldest);
      server.emit('connection', closedElsewhere);
      // Closed by someone else (a deadline, a client error): its close event comes later.
      closedElsewhere.destroy();
      server.emit('connection', newcomer);
      expect(oldest.destroyed).toBe(false);
      expect(newcomer.destroyed).toBe(false);
      // At the cap again, the longest idle makes room as before.
      server.emit('connection', extra);
      expect(oldest.destroyed).toBe(true);
      expect(newcomer.destroyed).toBe(false);
      expect(extra.destroyed).toBe(false);
    } finally {
      close();
    }
  });
});
