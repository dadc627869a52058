import { Writable } from 'node:stream';
import Fastify, { type FastifyServerOptions, LogController } from 'fastify';
import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyRequestLogger } from '../../src/observability/lazy-request-logger.js';
import { loggerOptions } from '../../src/observability/logger-options.js';

/**
 * A Fastify app configured as the service's (its logger options, request logging off),
 * writing JSON lines to memory and counting the child loggers pino makes.
 */
async function appLoggingTo(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  let childrenMade = 0;
  const app = Fastify({
    logger: {
      ...loggerOptions('info', false),
      stream: sink,
      onChild: () => {
        childrenMade++;
      },
    } as FastifyServerOptions['logger'],
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setChildLoggerFactory(lazyRequestLogger);
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/speaks', async (request) => {
    request.log.info({ part: 'one' }, 'first');
    request.log.warn('second');
    return { level: request.log.level };
  });
  app.get('/nested', async (request) => {
    request.log.child({ step: 'outer' }).child({ step: 'inner' }).info('deep');
    request.log.info({ req: { headers: { authorization: 'Bearer secret-token' } } }, 'redacted');
    return { enabled: (request.log as unknown as Logger).isLevelEnabled('debug') };
  });
  app.get('/errors-only', { logLevel: 'error' }, async (request) => {
    request.log.info('not written');
    request.log.error('written');
    return { level: request.log.level };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  // As the service's error handler does (src/http/error-handler.ts).
  app.setErrorHandler((error, request, reply) => {
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send({ detail: 'failed' });
  });
  await app.ready();
  // Fastify makes children of its own at start-up; count only those made after.
  const atStart = childrenMade;
  return { app, childrenMade: () => childrenMade - atStart };
}

describe('request loggers made only when a request logs', () => {
  it('a request that does not log makes no child logger', async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, childrenMade } = await appLoggingTo(lines);
    for (let i = 0; i < 20; i++) expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(childrenMade()).toBe(0);
    expect(lines).toEqual([]);
  });

  it("a request that logs writes its lines with the request's id, through one child", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, childrenMade } = await appLoggingTo(lines);
    const response = await app.inject('/speaks');
    expect(response.json()).toEqual({ level: 'info' });
    expect(childrenMade()).toBe(1);
    expect(lines.map((line) => [line.level, line.msg, line.part])).toEqual([
      [30, 'first', 'one'],
      [40, 'second', undefined],
    ]);
    expect(lines[0]!.reqId).toBe(lines[1]!.reqId);
    expect(typeof lines[0]!.reqId).toBe('string');
  });

  it("children of a request's logger keep its id, and secrets stay redacted", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app } = await appLoggingTo(lines);
    expect((await app.inject('/nested')).json()).toEqual({ enabled: false });
    const [deep, redacted] = lines;
    expect(deep).toMatchObject({ msg: 'deep', step: 'inner', reqId: expect.any(String) });
    expect(redacted?.reqId).toBe(deep?.reqId);
    expect(JSON.stringify(redacted)).not.toContain('secret-token');
  });

  it("a route's own log level still applies", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app } = await appLoggingTo(lines);
    expect((await app.inject('/errors-only')).json()).toEqual({ level: 'error' });
    expect(lines.map((line) => line.msg)).toEqual(['written']);
  });

  it("an error handler's log carries the request's id", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app } = await appLoggingTo(lines);
    expect((await app.inject('/fails')).statusCode).toBe(500);
    const logged = lines.find((line) => line.level === 50);
    expect(logged?.reqId).toEqual(expect.any(String));
    expect((logged?.err as { message?: string } | undefined)?.message).toBe('boom');
  });
});
