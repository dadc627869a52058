import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { atFileEnd } from './file-end.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface Upstream {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the server answers from now on. */
  respondWith(handler: UpstreamHandler): void;
  close(): Promise<void>;
}

export type UpstreamHandler = (
  request: RecordedRequest,
) => UpstreamAnswer | Promise<UpstreamAnswer>;

export interface UpstreamAnswer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A real HTTP peer on 127.0.0.1 for a service we call (the tracker API, an
 * OpenAI-compatible endpoint, the chat Bot API): it records every request and answers
 * with the current handler.
 */
export async function startUpstream(initial: UpstreamHandler): Promise<Upstream> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {}
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      requests.push(recorded);
      try {
        const answer = await handler(recorded);
        res.writeHead(answer.status ?? 200, {
          'content-type': 'application/json',
          ...answer.headers,
        });
        res.end(JSON.stringify(answer.body));
      } catch {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const upstream: Upstream = {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  atFileEnd(() => upstream.close());
  return upstream;
}

/** An OpenAI chat-completions answer whose message content is `content` as JSON. */
export function chatCompletion(content: unknown) {
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: JSON.stringify(content) },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
    },
  };
}
