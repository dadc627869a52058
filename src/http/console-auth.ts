import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import { equalInConstantTime } from '../support/constant-time.js';

type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** `Bearer <token>` with the scheme in any case (RFC 9110: auth schemes are case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer +(\S{1,4096})\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * CONTRACT, Access: with CONSOLE_TOKEN set, `Authorization: Bearer <token>`, compared in
 * constant time.
 * Anything else, a token in the query string included, is 401 `Unauthorized`.
 */
export function requireConsoleToken(config: Pick<Config, 'consoleToken'>): Guard {
  const expected = config.consoleToken;
  return async (request, reply) => {
    if (!expected) return;
    const given = bearerToken(request.headers.authorization);
    if (given !== undefined && equalInConstantTime(given, expected)) return;
    reply.header('www-authenticate', 'Bearer');
    throw errors.unauthorized();
  };
}

/**
 * CONTRACT, Access: the read API needs the console token, and in `prod` without one it is
 * closed (403) rather than open to anyone who can reach the port.
 */
export function requireReadApiAccess(config: Pick<Config, 'consoleToken' | 'appEnv'>): Guard {
  if (!config.consoleToken && config.appEnv === 'prod') {
    return async () => {
      throw errors.readApiClosed();
    };
  }
  return requireConsoleToken(config);
}
