import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The headers of every server-sent event stream the service opens (spec, Analysis tasks: the
 * stream's three headers; `x-accel-buffering: no` keeps nginx-style proxies from holding
 * events back).
 */
export const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/**
 * The streams a closing app ends: open streams would hold the server open until the close's
 * grace period cuts them. Those open when closing begins end then; one still opening (its
 * subscription or replay awaited) ends as soon as it opens. Each ends with its connection:
 * kept alive, the connection would carry an EventSource's reconnection back to this replica,
 * to be refused with a 503, on which an EventSource gives up for good (HTML, server-sent
 * events); on a new connection it reaches a replica that stays.
 */
export function endStreamsOnClose(app: FastifyInstance) {
  const open = new Map<() => void, ServerResponse>();
  let closing = false;
  const endWithConnection = (end: () => void, raw: ServerResponse) => {
    // Saved first: the response lets go of its socket once it has finished.
    const socket = raw.socket;
    end();
    socket?.end();
  };
  app.addHook('preClose', async () => {
    closing = true;
    for (const [end, raw] of [...open]) endWithConnection(end, raw);
  });
  return {
    /**
     * Records an opened stream until its response closes. One that ended while it opened
     * (its client left) is not recorded; one that opened after closing began ends now.
     */
    opened(raw: ServerResponse, end: () => void): void {
      if (raw.writableEnded || raw.destroyed) return;
      if (closing) {
        endWithConnection(end, raw);
        return;
      }
      open.set(end, raw);
      raw.once('close', () => open.delete(end));
    },
  };
}
