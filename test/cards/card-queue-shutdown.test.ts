import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createTelegramChat } from '../../src/adapters/telegram/telegram-chat.js';
import { createCardQueue, type OutgoingCard } from '../../src/features/cards/card-queue.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

/** The warning a queue closed with cards still waiting writes, as pino wrote it. */
async function shutdownLine(chatAt: 'refusing' | 'rate-limiting'): Promise<string> {
  const tg = await startTelegramStandIn();
  const lines: string[] = [];
  const log = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)).msg);
        done();
      },
    }),
  );
  const chat = createTelegramChat({
    token: tg.token,
    chatId: '4242',
    apiBase: tg.apiBase,
    retry: { attempts: 5, firstBackoffMs: 200, maxRetryAfterMs: 30_000 },
  });
  if (chatAt === 'refusing') await tg.close();
  else tg.rateLimitNext(30);
  const queue = createCardQueue({
    chat,
    digestAfter: 10,
    log,
    sendCard: async (card) => {
      const sent = await chat.sendMessage(card.text, undefined, { waitOutRateLimit: false });
      return { sent: true, message_id: sent.message_id };
    },
    sendDigest: async () => {},
  });
  const card = (n: number): OutgoingCard => ({
    params: {
      approval_id: `a-${n}`,
      risk_level: 'high',
      resource_name: 'api',
      root_cause: 'x',
      suggested_action: 'restart',
      estimated_downtime: '1m',
    },
    nonce: `n-${n}`,
    text: `card ${n}`,
    keyboard: null,
  });
  void queue.submit(card(1)).catch(() => undefined);
  void queue.submit(card(2)).catch(() => undefined);
  await waitFor(async () => chat.lastContact() ?? undefined);
  queue.close();
  if (chatAt === 'rate-limiting') await tg.close();
  return lines.at(-1) ?? '';
}

describe('cards still waiting at shutdown', () => {
  it('are blamed on a rate limit only while the chat asks to wait', async () => {
    expect(await shutdownLine('rate-limiting')).toBe(
      'approval cards not sent: the chat was still rate-limited at shutdown',
    );
  });

  it('are blamed on the refused connection when the chat API cannot be reached', async () => {
    expect(await shutdownLine('refusing')).toMatch(
      /^approval cards not sent before shutdown: the chat API was last unreachable: .*ECONNREFUSED/,
    );
  });
});
