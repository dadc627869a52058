import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { type Backend, buildTestApp, type TestApp } from './build-app.js';
import { atFileEnd } from './file-end.js';

export interface FeedFrame {
  id: string;
  event: { type: string; at: string; [field: string]: unknown };
}

/** An SSE client over fetch, as the console reads the feed (it may need a bearer token). */
export async function openFeed(
  app: FastifyInstance,
  headers: Record<string, string> = {},
  query = '',
) {
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const abort = new AbortController();
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/events${query}`, {
    headers,
    signal: abort.signal,
  });
  const frames: FeedFrame[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const reading = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          ended = true;
          return;
        }
        text += decoder.decode(value, { stream: true });
        let end = text.indexOf('\n\n');
        while (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const id = /^id: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (id && data) frames.push({ id, event: JSON.parse(data) });
          end = text.indexOf('\n\n');
        }
      }
    } catch {
      // aborted, or cut off by the server
      ended = true;
    }
  })();
  return {
    response,
    frames,
    /** Whether the stream has ended (by the server, or by close()). */
    ended: () => ended,
    async until(predicate: (frames: FeedFrame[]) => boolean, what: string) {
      const deadline = Date.now() + 10_000;
      while (!predicate(frames)) {
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(frames)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      abort.abort();
      await reading;
    },
  };
}

/**
 * An app listening on a loopback port for feed tests. On Redis, the feed's stream (megabytes
 * of test events) is deleted when the file ends, not left in the shared Redis.
 */
export async function listeningForFeed(backend: Backend): Promise<TestApp> {
  const test = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  const { REDIS_URL: url, REDIS_KEY_PREFIX: prefix } = test.env;
  if (url && prefix) {
    atFileEnd(async () => {
      const redis = new Redis(url);
      await redis.del(`${prefix}feed:events`);
      redis.disconnect();
    });
  }
  return test;
}
