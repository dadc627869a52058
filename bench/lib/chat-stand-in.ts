import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFloodControl, type FloodLimit, tooManyRequests } from './chat-flood-control.js';

/**
 * A Bot API for the chat storm run, on loopback, with the group flood limit of the real one
 * (chat-flood-control.ts). It only counts: messages and edits let through, 429 answers, and
 * message calls made before a `retry_after` it announced was over. The tests' stand-in
 * (test/helpers/telegram-stand-in.ts) is the faithful one; it registers with vitest, so the
 * bench cannot load it.
 */
export interface ChatStandInCounts {
  messages: number;
  /** Of the messages: approval cards (with buttons), digests, and anything else. */
  cards: number;
  digests: number;
  others: number;
  edits: number;
  refused: number;
  duringWait: number;
  /** Date.now() of the last call let through and of the last 429; 0 when none. */
  lastAcceptedAt: number;
  lastRefusedAt: number;
}

export interface ChatStandIn {
  apiBase: string;
  token: string;
  counts(): ChatStandInCounts;
  close(): Promise<void>;
}

export async function startChatStandIn(limit: FloodLimit): Promise<ChatStandIn> {
  const token = '424242:bench-stand-in';
  const flood = createFloodControl(limit);
  const counts: ChatStandInCounts = {
    messages: 0,
    cards: 0,
    digests: 0,
    others: 0,
    edits: 0,
    refused: 0,
    duringWait: 0,
    lastAcceptedAt: 0,
    lastRefusedAt: 0,
  };
  let nextMessageId = 1;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const method = /^\/bot[^/]+\/([A-Za-z]+)$/.exec(req.url ?? '')?.[1] ?? '';
      const now = Date.now();
      const verdict = flood.judge(method, now);
      if (verdict.duringWait) counts.duringWait += 1;
      if (verdict.retryAfter !== undefined) {
        counts.refused += 1;
        counts.lastRefusedAt = now;
        return reply(429, tooManyRequests(verdict.retryAfter));
      }
      if (method === 'getUpdates') return reply(200, { ok: true, result: [] });
      if (method === 'sendMessage') {
        counts.messages += 1;
        const kind = messageKind(Buffer.concat(chunks).toString('utf8'));
        counts[kind] += 1;
        counts.lastAcceptedAt = now;
        return reply(200, { ok: true, result: { message_id: nextMessageId++, date: 0 } });
      }
      if (method === 'editMessageText' || method === 'editMessageReplyMarkup') {
        counts.edits += 1;
        counts.lastAcceptedAt = now;
      }
      reply(200, { ok: true, result: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiBase: `http://127.0.0.1:${port}`,
    token,
    counts: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function messageKind(body: string): 'cards' | 'digests' | 'others' {
  try {
    const { text, reply_markup } = JSON.parse(body) as { text?: unknown; reply_markup?: unknown };
    if (reply_markup) return 'cards';
    if (typeof text === 'string' && /^\d+ new incidents\n/.test(text)) return 'digests';
  } catch {}
  return 'others';
}
