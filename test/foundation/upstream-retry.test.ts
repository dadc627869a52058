import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createHttpTracker } from '../../src/adapters/http/http-tracker.js';
import { createTelegramChat } from '../../src/adapters/telegram/telegram-chat.js';
import { retryAfterHeaderMs } from '../../src/support/upstream-retry.js';
import { freePort } from '../helpers/private-services.js';
import { startUpstream, type UpstreamAnswer } from '../helpers/upstreams.js';

const FAST = { attempts: 4, firstBackoffMs: 20, maxRetryAfterMs: 5_000 };
const SENT = { body: { ok: true, result: { message_id: 7 } } };
const log = pino({ level: 'silent' });

/** Answers with `failures` in turn, then `last` for every request after them. */
function inTurn(failures: UpstreamAnswer[], last: UpstreamAnswer) {
  let index = 0;
  return () => failures[index++] ?? last;
}

const flood = (seconds: number): UpstreamAnswer => ({
  status: 429,
  body: {
    ok: false,
    error_code: 429,
    description: `Too Many Requests: retry after ${seconds}`,
    parameters: { retry_after: seconds },
  },
});
const broken: UpstreamAnswer = {
  status: 500,
  body: { ok: false, error_code: 500, description: 'Internal Server Error' },
};

async function chatAgainst(answers: () => UpstreamAnswer, timeoutMs = 2_000) {
  const upstream = await startUpstream(answers);
  const chat = createTelegramChat({
    token: '1:T',
    chatId: '42',
    apiBase: upstream.url,
    timeoutMs,
    retry: FAST,
  });
  return { upstream, chat };
}

/**
 * The chat API and the tracker, slow or failing: a 429 is retried after the wait it names
 * (never sooner), a 5xx after a backoff, and nothing that may have arrived is sent twice.
 */
describe('the chat API refusing for now', () => {
  it('waits the retry_after of a 429 and then sends the message once', async () => {
    const { upstream, chat } = await chatAgainst(inTurn([flood(1)], SENT));
    const started = Date.now();
    const sent = await chat.sendMessage('card');
    expect(sent.message_id).toBe(7);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(upstream.requests).toHaveLength(2);
  });

  it('retries a 500 with a backoff until it succeeds', async () => {
    const { upstream, chat } = await chatAgainst(inTurn([broken, broken], SENT));
    await chat.sendMessage('card');
    expect(upstream.requests).toHaveLength(3);
  });

  it('gives up after the last attempt with the API description', async () => {
    const { upstream, chat } = await chatAgainst(() => broken);
    await expect(chat.sendMessage('card')).rejects.toThrow('Chat API error: Internal Server Error');
    expect(upstream.requests).toHaveLength(FAST.attempts);
  });

  it('does not retry a 429 asking for longer than it may wait', async () => {
    const { upstream, chat } = await chatAgainst(() => flood(3600));
    await expect(chat.sendMessage('card')).rejects.toThrow('Too Many Requests');
    expect(upstream.requests).toHaveLength(1);
  });

  it('does not retry a refusal that will not change (400)', async () => {
    const { upstream, chat } = await chatAgainst(() => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
    }));
    await expect(chat.sendMessage('card')).rejects.toThrow('chat not found');
    expect(upstream.requests).toHaveLength(1);
  });

  it('never sends a message twice when the API is slower than the timeout', async () => {
    const upstream = await startUpstream(async () => {
      await sleep(600);
      return SENT;
    });
    const chat = createTelegramChat({
      token: '1:T',
      chatId: '42',
      apiBase: upstream.url,
      timeoutMs: 200,
      retry: FAST,
    });
    await expect(chat.sendMessage('card')).rejects.toThrow('no answer within 200 ms');
    await sleep(700);
    expect(upstream.requests).toHaveLength(1);
  });

  it('retries a connection that was refused, as nothing was sent', async () => {
    const port = await freePort();
    const chat = createTelegramChat({
      token: '1:T',
      chatId: '42',
      apiBase: `http://127.0.0.1:${port}`,
      retry: FAST,
    });
    const started = Date.now();
    await expect(chat.sendMessage('card')).rejects.toThrow('ECONNREFUSED');
    // 20 + 40 + 80 ms of backoff between the four attempts.
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe('the tracker refusing for now', () => {
  const tracker = (url: string) =>
    createHttpTracker({ apiBase: url, token: 'tok', timeoutMs: 200, retry: FAST }, log);

  it('waits the Retry-After header of a 429, then posts the comment once', async () => {
    const upstream = await startUpstream(
      inTurn([{ status: 429, body: { detail: 'slow down' }, headers: { 'retry-after': '1' } }], {
        status: 201,
        body: { id: 'c1' },
      }),
    );
    const started = Date.now();
    await tracker(upstream.url).postComment('ISSUE-1', 'analysis');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[1]!.body).toEqual({ text: 'analysis' });
  });

  it('retries a 503 and stops at a 404', async () => {
    const flaky = await startUpstream(
      inTurn([{ status: 503, body: {} }], { status: 201, body: {} }),
    );
    await tracker(flaky.url).postComment('ISSUE-2', 'x');
    expect(flaky.requests).toHaveLength(2);

    const missing = await startUpstream(() => ({ status: 404, body: { detail: 'no issue' } }));
    await expect(tracker(missing.url).postComment('ISSUE-3', 'x')).rejects.toThrow(
      'Tracker comment failed: HTTP 404',
    );
    expect(missing.requests).toHaveLength(1);
  });

  it('does not post again after a timeout', async () => {
    const slow = await startUpstream(async () => {
      await sleep(500);
      return { status: 201, body: {} };
    });
    await expect(tracker(slow.url).postComment('ISSUE-4', 'x')).rejects.toThrow();
    await sleep(600);
    expect(slow.requests).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(retryAfterHeaderMs('5', now)).toBe(5_000);
    expect(retryAfterHeaderMs('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterHeaderMs('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterHeaderMs(null, now)).toBeUndefined();
    expect(retryAfterHeaderMs('soon', now)).toBeUndefined();
  });
});
