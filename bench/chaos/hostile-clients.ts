import net from 'node:net';
import { sleep } from './flow.js';

// Raw TCP attackers for the hostile scenario: slow requests, idle keep-alive connections and
// live feed streams that are never read, each recording what the server did to it and when.
// Raw sockets, not an HTTP client: a client library would finish the request, read the
// stream, or pool connections, which is exactly what these clients must not do.

export type AttackKind = 'partial-headers' | 'slow-body' | 'idle-keep-alive' | 'feed';

/** One attacker connection, seen from the attacker's side. */
export interface AttackConnection {
  kind: AttackKind;
  from: string;
  /** performance.now() when the connection was established, and when the server ended it. */
  connectedAt?: number;
  closedAt?: number;
  /** The status of the server's first answer, if one came. */
  status?: number;
  retryAfter?: string;
  /** The connection could not be opened here (EMFILE, EADDRNOTAVAIL…): not an attack sent. */
  error?: string;
  /** Ends it from our side; a close after this is not counted as the server's. */
  close(): void;
}

/** Bytes a slow body announces: under the 1 MiB body limit, so nothing refuses it early. */
const SLOW_BODY_BYTES = 100_000;
/** One byte every this often: each byte is progress, which a per-read idle timer would reward. */
const TRICKLE_MS = 2_000;

/**
 * The first bytes of each kind. The slow requests go to the signed webhook, which must read
 * the whole body before it can check the signature, so only the deadline ends them.
 */
function opening(kind: AttackKind, host: string): string {
  switch (kind) {
    case 'partial-headers':
      return `POST /api/v1/webhooks/alerts HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `;
    case 'slow-body':
      return (
        `POST /api/v1/webhooks/alerts HTTP/1.1\r\nHost: ${host}\r\n` +
        `Content-Type: application/json\r\nX-Signature-256: sha256=${'0'.repeat(64)}\r\n` +
        `Content-Length: ${SLOW_BODY_BYTES}\r\n\r\n{"alert_name":"`
      );
    case 'idle-keep-alive':
      return `GET /api/v1/livez HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    case 'feed':
      return `GET /api/v1/events HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\n\r\n`;
  }
}

/** Opens one attacker connection from `from` (a loopback address) to the service. */
export function attack(port: number, kind: AttackKind, from: string): AttackConnection {
  let ours = false;
  let trickle: NodeJS.Timeout | undefined;
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: from });
  const connection: AttackConnection = {
    kind,
    from,
    close() {
      ours = true;
      clearInterval(trickle);
      socket.destroy();
    },
  };
  socket.once('connect', () => {
    connection.connectedAt = performance.now();
    socket.write(opening(kind, `127.0.0.1:${port}`));
    if (kind === 'partial-headers' || kind === 'slow-body') {
      trickle = setInterval(() => socket.write('a'), TRICKLE_MS);
    }
  });
  socket.once('data', (chunk: Buffer) => {
    const head = chunk.toString('latin1');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
    if (status) connection.status = Number(status);
    connection.retryAfter = /\r\nretry-after: *([^\r\n]*)/i.exec(head)?.[1];
    // A stream that is never read: the service's writes fill the socket buffers, then its memory.
    if (kind === 'feed' && connection.status === 200) socket.pause();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => {
    if (connection.connectedAt === undefined) connection.error = error.code ?? error.message;
  });
  socket.once('close', () => {
    clearInterval(trickle);
    if (!ours && connection.connectedAt !== undefined) connection.closedAt = performance.now();
  });
  return connection;
}

/** `count` loopback addresses from 127.0.0.`first` on; Linux routes all of 127/8 to lo. */
export function loopbackAddresses(first: number, count: number): string[] {
  return Array.from({ length: count }, (_, k) => {
    const n = first + k;
    return `127.0.${Math.floor(n / 256)}.${n % 256}`;
  });
}

/** Calls `open(i)` for i in [0, count) at `perSecond`, so the attack ramps up and stays bounded. */
export async function openAtRate(count: number, perSecond: number, open: (i: number) => void) {
  const started = performance.now();
  let opened = 0;
  while (opened < count) {
    const due = Math.floor(((performance.now() - started) / 1000) * perSecond) + 1;
    while (opened < Math.min(count, due)) open(opened++);
    await sleep(10);
  }
}

export const heldMs = (c: AttackConnection) =>
  (c.closedAt ?? performance.now()) - (c.connectedAt ?? 0);

/**
 * Closed without any answer: the per-address cap refused it (every connection let in is
 * answered, 408 at its deadline or 200 before idling). How soon is checked on its own: under
 * a stalled service a refusal can take long, and must not then pass for a connection let in.
 */
export const refused = (c: AttackConnection) => c.closedAt !== undefined && c.status === undefined;

/** `3 × EMFILE, 1 × 200` style counts of one property. */
export function countBy<T>(items: T[], key: (item: T) => string | undefined): string {
  const counts = new Map<string, number>();
  for (const item of items) {
    const value = key(item);
    if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return [...counts.entries()].map(([value, n]) => `${n} × ${value}`).join(', ') || 'none';
}
