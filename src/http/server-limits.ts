import fs from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyHttpOptions } from 'fastify';
import type { Config } from '../config.js';
import { errors, type HttpError } from '../errors.js';

/** CONTRACT, Hostile clients: headers get 10 s, or REQUEST_TIMEOUT_MS if that is shorter. */
const HEADERS_TIMEOUT_MS = 10_000;
/**
 * CONTRACT, Hostile clients: idle keep-alive connections close after 5 s. Node closes one
 * `keepAliveTimeout` plus a second after the last answer, so this says 4 s.
 */
const KEEP_ALIVE_TIMEOUT_MS = 4_000;
/**
 * How often Node looks for requests past their header or body deadline. Its default (30 s)
 * would let a trickling client hold its connection for up to twice the deadline.
 */
const DEADLINE_CHECK_INTERVAL_MS = 1_000;

type Limits = Pick<Config, 'requestTimeoutMs'>;

/** The server options that bound how long a slow or idle client may hold a connection. */
export function connectionDeadlines(config: Limits): Partial<FastifyHttpOptions<Server>> {
  const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs);
  return {
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    http: {
      headersTimeout,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(DEADLINE_CHECK_INTERVAL_MS, headersTimeout),
    },
    clientErrorHandler: answerClientError,
  };
}

const CLIENT_ERRORS: Record<string, () => HttpError> = {
  ERR_HTTP_REQUEST_TIMEOUT: errors.requestTimeout,
  HPE_HEADER_OVERFLOW: errors.headersTooLarge,
};

/**
 * A request Node refused before Fastify saw it (a deadline passed, headers too large, bytes
 * that are not HTTP): answered in the contract's `{"detail", "code"}` shape when an answer can
 * still be written, and the connection closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = (CLIENT_ERRORS[error.code ?? ''] ?? errors.malformedRequest)();
  const body = JSON.stringify(known.body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.statusCode} ${http.STATUS_CODES[known.statusCode]}\r\n` +
        'Content-Type: application/json\r\n' +
        // CONTRACT, Bad input: every answer carries these two, this one written by hand too.
        'X-Content-Type-Options: nosniff\r\n' +
        'Referrer-Policy: no-referrer\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

/**
 * CONTRACT, Hostile clients: one client address holds at most `max` open connections;
 * further ones are closed at once, so one address cannot use up the process's descriptors
 * and everyone else keeps being answered.
 *
 * A proxy of TRUST_PROXY (`isTrustedProxy`) is not capped: every client behind it shares its
 * address, so the cap would cut them all off together. MAX_CONNECTIONS still bounds it.
 */
export function capConnectionsPerClient(
  server: Server,
  max: number,
  isTrustedProxy: (address?: string) => boolean = () => false,
): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    if (isTrustedProxy(socket.remoteAddress)) return;
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
  });
}

/** Where the descriptor limit cannot be read (not Linux): a common default soft limit. */
const FALLBACK_DESCRIPTOR_LIMIT = 1024;
/** Linux's default ceiling (`fs.nr_open`), for a limit that reads `unlimited`. */
const UNLIMITED_DESCRIPTORS = 1_048_576;
/** CONTRACT, Under races, crashes and abuse: MAX_CONNECTIONS defaults to 80 % of the limit. */
const CONNECTIONS_SHARE_OF_DESCRIPTORS = 0.8;

/**
 * The process's open-file limit: the soft limit of /proc/self/limits, which Node has already
 * raised to the hard limit where it could. Elsewhere a fixed guess, MAX_CONNECTIONS being
 * the way to say better.
 */
export function descriptorLimit(readLimits = () => fs.readFileSync('/proc/self/limits', 'utf8')) {
  let text: string;
  try {
    text = readLimits();
  } catch {
    return FALLBACK_DESCRIPTOR_LIMIT;
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === 'unlimited') return UNLIMITED_DESCRIPTORS;
  const limit = Number(soft);
  return Number.isInteger(limit) && limit > 0 ? limit : FALLBACK_DESCRIPTOR_LIMIT;
}

const CLOSED_LINE_INTERVAL_MS = 60_000;

/** MAX_CONNECTIONS when unset: what leaves a fifth of the descriptors to files and peers. */
export function defaultMaxConnections(limit = descriptorLimit()): number {
  return Math.max(1, Math.floor(limit * CONNECTIONS_SHARE_OF_DESCRIPTORS));
}

/**
 * CONTRACT, Under races, crashes and abuse (Descriptors): when open connections reach `max`,
 * the connections idle longest are closed to make room, so that a new client is still
 * answered however many addresses the idle or slow ones come from (the per-address cap alone
 * lets a hundred addresses hold every descriptor, and past the limit Node resets what it
 * accepts).
 *
 * Idle is a connection without a request in flight: a keep-alive one between requests, or
 * one whose request headers have not all arrived, idle since it last finished an answer or
 * since it opened. Only when every connection has a request in flight is one closed anyway:
 * first the one waiting longest whose answer has not started (a slow body), and a
 * connection mid-answer (a live feed's stream) only when there is nothing else.
 */
export function capConnections(server: Server, max: number, log?: FastifyBaseLogger): void {
  // Least recently active first: Sets and Maps iterate in insertion order, and a connection
  // is inserted again whenever it becomes idle (or busy).
  const idle = new Set<Socket>();
  const busy = new Map<Socket, Set<ServerResponse>>();

  function forget(socket: Socket) {
    idle.delete(socket);
    busy.delete(socket);
  }

  function waitingLongest(): Socket | undefined {
    for (const socket of idle) return socket;
    for (const [socket, answers] of busy) {
      if (![...answers].some((answer) => answer.headersSent)) return socket;
    }
    for (const socket of busy.keys()) return socket;
    return undefined;
  }

  // Said at most once a minute, with how many were closed since: a flood would otherwise
  // write a line per connection.
  let closedSinceLine = 0;
  let lastLineAt = 0;
  /**
   * A connection closed elsewhere (a deadline, a client error, the per-address cap) is
   * still held here until its `close` event, which comes a turn later: at the cap those
   * take no room, so no live connection is closed in their place.
   */
  function forgetClosed() {
    for (const socket of idle) if (socket.destroyed) idle.delete(socket);
    for (const socket of busy.keys()) if (socket.destroyed) busy.delete(socket);
  }

  function makeRoom() {
    if (idle.size + busy.size >= max) forgetClosed();
    while (idle.size + busy.size >= max) {
      const victim = waitingLongest();
      if (!victim) return;
      forget(victim);
      victim.destroy();
      closedSinceLine += 1;
    }
    if (closedSinceLine > 0 && Date.now() - lastLineAt >= CLOSED_LINE_INTERVAL_MS) {
      log?.warn(
        { closed: closedSinceLine, max_connections: max },
        'open connections reached MAX_CONNECTIONS: closed the longest idle to make room',
      );
      closedSinceLine = 0;
      lastLineAt = Date.now();
    }
  }

  server.on('connection', (socket: Socket) => {
    // Closed already by the per-address cap: it takes no room.
    if (socket.destroyed) return;
    makeRoom();
    idle.add(socket);
    socket.once('close', () => forget(socket));
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    if (!idle.has(socket) && !busy.has(socket)) return;
    let answers = busy.get(socket);
    if (!answers) {
      answers = new Set();
      idle.delete(socket);
      busy.set(socket, answers);
    }
    answers.add(response);
    response.once('close', () => {
      const current = busy.get(socket);
      if (!current) return;
      current.delete(response);
      if (current.size > 0 || socket.destroyed) return;
      busy.delete(socket);
      idle.add(socket);
    });
  });
}

/**
 * CONTRACT, Hostile clients: `Expect: 100-continue` gets a refusal without `100 Continue`.
 * Node sends `100 Continue` before any handler runs unless the server listens for
 * `checkContinue`; here the request goes to the app as usual and `100 Continue` is sent
 * only once something starts reading the body, which no refusal does.
 */
export function continueOnlyWhenBodyIsRead(server: Server): void {
  server.on('checkContinue', (request: http.IncomingMessage, response: http.ServerResponse) => {
    request.once('resume', () => {
      if (!response.headersSent && !response.writableEnded) response.writeContinue();
    });
    server.emit('request', request, response);
  });
}
