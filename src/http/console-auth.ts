import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

/** CONTRACT, Extensions: with CONSOLE_TOKEN set, the read API needs `Bearer <token>`. */
export function requireConsoleToken(token: string | undefined) {
  const expected = token ? crypto.createHash('sha256').update(token).digest() : undefined;
  return async (request: FastifyRequest) => {
    if (!expected) return;
    const header = request.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    const digest = crypto.createHash('sha256').update(given).digest();
    if (!crypto.timingSafeEqual(digest, expected)) throw errors.unauthorized();
  };
}
