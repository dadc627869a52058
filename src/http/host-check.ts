import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { errors } from '../errors.js';

/** Whether `address` (a listen address or a Host name) is this machine's loopback. */
export function isLoopback(address: string): boolean {
  const name = address.toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** The name in a `Host` header, without its port; an IPv6 literal without its brackets. */
export function hostName(header: string): string {
  if (header.startsWith('[')) {
    const close = header.indexOf(']');
    return (close === -1 ? header.slice(1) : header.slice(1, close)).toLowerCase();
  }
  const colon = header.lastIndexOf(':');
  return (colon === -1 ? header : header.slice(0, colon)).toLowerCase();
}

/**
 * CONTRACT, Hostile clients (DNS rebinding): while the service listens on loopback, a page
 * whose name was re-pointed at 127.0.0.1 reaches it with its own name in `Host`; such a
 * request gets 421. With ALLOWED_HOSTS set, the list applies on every listen address.
 */
export function refuseUnknownHosts(
  app: FastifyInstance,
  config: Pick<Config, 'host' | 'allowedHosts'>,
): void {
  const allowed = new Set(config.allowedHosts.map((name) => name.toLowerCase()));
  if (allowed.size === 0 && !isLoopback(config.host)) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.host;
    // A browser always sends Host, so a request without one is not a rebound page.
    if (header === undefined) return done();
    const name = hostName(header);
    if (isLoopback(name) || allowed.has(name)) return done();
    done(errors.unknownHost(name));
  });
}
