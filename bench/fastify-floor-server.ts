/**
 * The framework floor: the bare baseline's work (raw body, HMAC-SHA256 in constant time,
 * JSON.parse, small JSON reply) inside a Fastify 5 route, with no logger, schema, hooks or
 * storage. What the service's signal path could reach if everything it adds to Fastify cost
 * nothing; `fastify-floor ÷ bare` bounds every service ÷ bare ratio from above.
 * Run as a child process by bench/run.ts: `node --import tsx bench/fastify-floor-server.ts`.
 */
import Fastify, { type FastifyRequest } from 'fastify';
import { validSignature } from './lib/signing.js';

const secret = process.env.WEBHOOK_SECRET ?? '';
const port = Number(process.env.PORT ?? 0);

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
const rawBodies = new WeakMap<FastifyRequest, Buffer>();
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
  rawBodies.set(request, body as Buffer);
  try {
    done(null, JSON.parse((body as Buffer).toString('utf8')));
  } catch {
    done(null, undefined);
  }
});
app.get('/health', async () => ({ ok: true }));
app.post('/api/v1/webhooks/signals', async (request, reply) => {
  if (!validSignature(secret, request.headers['x-signature-256'], rawBodies.get(request)!)) {
    return reply.code(401).send({ detail: 'HMAC verification failed' });
  }
  if (request.body === undefined) return reply.code(400).send({ detail: 'invalid JSON' });
  return { success: true };
});

await app.listen({ port, host: '127.0.0.1' });
async function shutdown() {
  app.server.closeAllConnections();
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
