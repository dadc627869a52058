import type { FastifyInstance, RouteOptions } from 'fastify';
import { errors } from '../errors.js';

/**
 * How soon a request refused while closing may be retried. The listener is closed by then,
 * so a retry on a new connection cannot come back to this replica.
 */
const SHUTTING_DOWN_RETRY_AFTER_S = 1;
const SHUTTING_DOWN = errors.shuttingDown();
/**
 * Serialized here: an object would go through the route's serializer for a 503, and a route
 * that declares its own 503 shape (`/readyz`) would fail on `{detail, code}` and answer 500.
 */
const SHUTTING_DOWN_BODY = JSON.stringify(SHUTTING_DOWN.body);

/**
 * What `app.close()` needs beyond Fastify's own: handlers whose client went away still
 * finish before the database closes (their writes and job enqueues must land), responses
 * sent while closing (or before the request's body was read) end their connection, and
 * connections still open after `graceMs` are cut so shutdown never waits out a keep-alive
 * timeout. A request that arrives after closing began is refused with a 503 of the API's
 * shape (Fastify's own `return503OnClosing` answer has neither `detail` nor the security
 * headers): register the API's security headers before this, so the refusal carries them.
 */
export function prepareGracefulClose(app: FastifyInstance, graceMs = 10_000) {
  const running = new Set<Promise<unknown>>();
  let closing = false;

  app.addHook('onRoute', (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function trackedHandler(this: unknown, request, reply) {
      const result = (handler as (...args: unknown[]) => unknown).call(this, request, reply);
      if (result instanceof Promise) {
        running.add(result);
        result.then(
          () => running.delete(result),
          () => running.delete(result),
        );
      }
      return result;
    } as RouteOptions['handler'];
  });
  // A request whose headers were still arriving when closing began (its connection was not
  // idle, so the server kept it), or one pipelined behind a request in flight: shed, so the
  // client retries where the work can finish, rather than started on a replica that stops.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply
      .code(SHUTTING_DOWN.statusCode)
      .type('application/json; charset=utf-8')
      .header('retry-after', String(SHUTTING_DOWN_RETRY_AFTER_S))
      .send(SHUTTING_DOWN_BODY);
  });
  app.addHook('preClose', async () => {
    closing = true;
    setTimeout(() => app.server.closeAllConnections(), graceMs).unref();
  });
  // Callback style, not async: this runs on every response and a promise each time shows.
  // CONTRACT, Hostile clients: a request refused before its body was read (401, 403, 413,
  // 415, ...) is answered at once and its connection closed, so a client cannot hold the
  // connection by trickling the body that nobody will read.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (closing || !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });

  return {
    /**
     * Resolves once every handler that started has settled, those that started while it
     * waited included (a request routed before closing whose body was still arriving).
     */
    drain: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
