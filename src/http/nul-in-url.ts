import type { FastifyInstance } from 'fastify';
import { errors } from '../errors.js';

/** `%00` in any case: the only way a NUL reaches a path or query (Node refuses a raw one). */
const ENCODED_NUL = /%00/i;

/**
 * A NUL in a path or query value would reach the database: PostgreSQL refuses it in text
 * ("invalid byte sequence for encoding UTF8: 0x00", a 500) and SQLite cuts the value there.
 * No id, name, search or cursor of ours holds one, so any such request is refused at once.
 */
export function refuseNulInUrl(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(ENCODED_NUL.test(request.url) ? errors.nulInUrl() : undefined);
  });
}
