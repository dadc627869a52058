import { beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChat } from '../../src/adapters/telegram/telegram-chat.js';
import { notifyResultInChat } from '../../src/features/repair/repair-chat.js';
import { type ChatPort, isRateLimited } from '../../src/ports/chat.js';
import { buildTestApp } from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import { chatEnv } from './chat-flow.js';

/**
 * CONTRACT, Chat under storms: "No message goes to the chat while a 429's `Retry-After`
 * runs, from any sender in the process." The stand-in answers 429 with
 * `parameters.retry_after` and marks every message call that arrives before that wait is over.
 */

let tg: TelegramStandIn;
let chat: ChatPort;
beforeEach(async () => {
  tg = await startTelegramStandIn();
  chat = createTelegramChat({ token: tg.token, chatId: '4242', apiBase: tg.apiBase });
});

const messageCalls = () =>
  tg
    .calls()
    .filter((call) => call.method !== 'answerCallbackQuery' && call.method !== 'getUpdates');

describe('the chat adapter tells what the chat API last answered', () => {
  it('reachable, rate-limited, refused with a reason, and unreachable', async () => {
    expect(chat.lastContact()).toBeNull();
    await chat.sendMessage('hello');
    expect(chat.lastContact()).toMatchObject({ state: 'reachable', detail: null });
    tg.rateLimitNext(5);
    await chat.sendMessage('card', undefined, { waitOutRateLimit: false }).catch(() => undefined);
    expect(chat.lastContact()).toMatchObject({
      state: 'rate_limited',
      detail: expect.stringContaining('Too Many Requests'),
    });
    tg.failNext('answerCallbackQuery', 'Bad Request: query is too old', 400);
    await chat.answerCallback('q-1').catch(() => undefined);
    expect(chat.lastContact()).toMatchObject({
      state: 'error',
      detail: 'Bad Request: query is too old',
    });
    await tg.close();
    await chat.answerCallback('q-2').catch(() => undefined);
    expect(chat.lastContact()?.state).toBe('unreachable');
    expect(chat.lastContact()?.detail).toMatch(/ECONNREFUSED|fetch failed/);
  });
});

describe('the chat adapter under a 429', () => {
  it('holds every send and edit until retry_after has passed, then sends each once', async () => {
    const first = await chat.sendMessage('before');
    tg.rateLimitNext(1);
    const started = Date.now();
    const limited = chat.sendMessage('limited');
    // Calls already on their way when the 429 is answered cannot know of it: the others
    // start once the adapter has it.
    await waitFor(async () => chat.rateLimitedUntil() > Date.now() || undefined, {
      what: 'the 429',
    });
    const results = await Promise.all([
      limited,
      chat.sendMessage('second sender'),
      chat.editMessage(first.message_id, 'edited', null),
      chat.sendMessage('third sender'),
    ]);
    expect(results).toHaveLength(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(tg.calls().filter((call) => call.duringWait)).toEqual([]);
    // One refused call; every other one went out once, after the wait.
    expect(tg.rateLimited()).toBe(1);
    const sent = tg.calls('sendMessage').filter((call) => call.status === 200);
    expect(sent.map((call) => call.body.text).sort()).toEqual(
      ['before', 'limited', 'second sender', 'third sender'].sort(),
    );
    expect(tg.message(first.message_id)?.text).toBe('edited');
  });

  it('lets a caller with its own queue fail at once instead, without a call', async () => {
    tg.rateLimitNext(2);
    const refused = await chat
      .sendMessage('card', undefined, { waitOutRateLimit: false })
      .catch((error: unknown) => error);
    expect(isRateLimited(refused)).toBe(true);
    expect(chat.rateLimitedUntil()).toBeGreaterThan(Date.now() + 1000);
    const again = await chat
      .editMessage(1, 'x', null, { waitOutRateLimit: false })
      .catch((error: unknown) => error);
    expect(isRateLimited(again)).toBe(true);
    // The second refusal never reached the API.
    expect(messageCalls()).toHaveLength(1);
  });

  it('answers a callback query during the wait: it is no message in the chat', async () => {
    tg.rateLimitNext(2);
    await chat.sendMessage('card', undefined, { waitOutRateLimit: false }).catch(() => undefined);
    await chat.answerCallback('cb-1', 'Approved');
    expect(tg.calls('answerCallbackQuery')).toHaveLength(1);
    expect(tg.calls().filter((call) => call.duringWait)).toEqual([]);
  });
});

describe('every sender of the app waits for the same 429', () => {
  it('repair results stay out of a flooded chat; the test push answers 502 at once and sends nothing', async () => {
    const { app } = await buildTestApp({ env: chatEnv(tg) });
    tg.rateLimitNext(1);
    const push = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/chatops/test-push',
        payload: { approval_id: 'test-approval' },
      });
    const limited = await push();
    expect(limited.statusCode).toBe(502);
    expect(limited.json().detail).toMatch(/^Chat API error: Too Many Requests: retry after \d+$/);
    // During the wait: another test push and a repair result.
    const duringWait = await push();
    expect(duringWait.statusCode).toBe(502);
    await notifyResultInChat(app.services)({
      text: 'Repair executed',
      approval_id: 'a-1',
      incident_id: 'inc-1',
      actor: 'auto-repair',
    });
    expect(tg.calls().filter((call) => call.duringWait)).toEqual([]);
    // Within a minute of the 429 a result is not sent (new cards need the few messages a
    // minute the chat takes); it is in the operation log as not sent.
    const results = tg.calls('sendMessage').filter((call) => call.body.text === 'Repair executed');
    expect(results).toHaveLength(0);
    const logged = await app.services.store.db
      .selectFrom('operation_log')
      .select(['success', 'error_message'])
      .where('type', '=', 'CHAT_RESULT_SENT')
      .where('approval_id', '=', 'a-1')
      .execute();
    expect(logged).toEqual([
      {
        success: 0,
        error_message: 'not sent: the chat asked to wait (429) within the last minute',
      },
    ]);
    // Once the wait is over the chat takes messages again.
    const waitMs = app.services.chat.rateLimitedUntil() - Date.now() + 50;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, waitMs)));
    expect((await push()).statusCode).toBe(200);
  });
});
