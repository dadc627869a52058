import http, { type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions } from 'fastify';
import type { Config } from '../config.js';

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

const CLIENT_ERRORS: Record<string, { status: number; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'Request not received in time' },
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'Request headers are too large' },
};

/**
 * A request Node refused before Fastify saw it (a deadline passed, headers too large, bytes
 * that are not HTTP): answered in the contract's `{"detail"}` shape when an answer can
 * still be written, and the connection closed.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, detail: 'Malformed request' };
  const body = JSON.stringify({ detail: known.detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${http.STATUS_CODES[known.status]}\r\n` +
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
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
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
