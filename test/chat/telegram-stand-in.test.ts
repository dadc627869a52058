import { describe, expect, it } from 'vitest';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';

/** The stand-in is shared by the chat suites: its Bot API behaviour is pinned here. */
async function call(apiBase: string, token: string, method: string, body: unknown) {
  const response = await fetch(`${apiBase}/bot${token}/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const keyboard = [[{ text: 'Approve', callback_data: 'approve:a1:0123456789abcdef' }]];

describe('telegram stand-in', () => {
  it('answers a wrong token with 401 and records nothing', async () => {
    const tg = await startTelegramStandIn();
    const answer = await call(tg.apiBase, '1:wrong', 'sendMessage', { chat_id: 1, text: 'x' });
    expect(answer).toEqual({
      status: 401,
      body: { ok: false, error_code: 401, description: 'Unauthorized' },
    });
    expect(tg.calls()).toEqual([]);
  });

  it('refuses callback_data over 64 bytes like the Bot API', async () => {
    const tg = await startTelegramStandIn();
    const answer = await call(tg.apiBase, tg.token, 'sendMessage', {
      chat_id: 1,
      text: 'x',
      reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a'.repeat(65) }]] },
    });
    expect(answer.body).toMatchObject({
      ok: false,
      description: 'Bad Request: BUTTON_DATA_INVALID',
    });
  });

  it('edits the reply markup alone and refuses an edit that changes nothing', async () => {
    const tg = await startTelegramStandIn();
    const sent = await call(tg.apiBase, tg.token, 'sendMessage', {
      chat_id: '5',
      text: 'x',
      reply_markup: { inline_keyboard: keyboard },
    });
    expect(sent.body.result).toMatchObject({ message_id: 1, chat: { id: 5 }, text: 'x' });
    const edit = { chat_id: '5', message_id: 1, reply_markup: { inline_keyboard: [] } };
    expect((await call(tg.apiBase, tg.token, 'editMessageReplyMarkup', edit)).body.ok).toBe(true);
    expect(tg.message(1)?.reply_markup).toBeUndefined();
    const again = await call(tg.apiBase, tg.token, 'editMessageReplyMarkup', edit);
    expect(again.body.description).toMatch(/^Bad Request: message is not modified/);
  });

  it('press queues the callback of a sent button', async () => {
    const tg = await startTelegramStandIn();
    await call(tg.apiBase, tg.token, 'sendMessage', {
      chat_id: 5,
      text: 'card',
      reply_markup: { inline_keyboard: keyboard },
    });
    const updateId = tg.press(1, 'approve', 77, 'ops');
    const answer = await call(tg.apiBase, tg.token, 'getUpdates', { offset: 0, timeout: 0 });
    expect(answer.body.result).toEqual([
      {
        update_id: updateId,
        callback_query: {
          id: expect.any(String),
          data: 'approve:a1:0123456789abcdef',
          from: { id: 77, username: 'ops', first_name: 'ops' },
          message: { message_id: 1, text: 'card' },
        },
      },
    ]);
    expect(() => tg.press(1, 'details', 77)).toThrow(/no details button/);
  });

  it('ends a held poll with 409 when another poll starts', async () => {
    const tg = await startTelegramStandIn();
    const first = call(tg.apiBase, tg.token, 'getUpdates', { offset: 0, timeout: 5 });
    await tg.waitForCalls('getUpdates');
    const second = call(tg.apiBase, tg.token, 'getUpdates', { offset: 0, timeout: 0 });
    expect((await first).body).toMatchObject({ ok: false, error_code: 409 });
    expect((await second).body).toEqual({ ok: true, result: [] });
  });

  it('caps how long a poll is held with maxLongPollMs', async () => {
    const tg = await startTelegramStandIn({ maxLongPollMs: 50 });
    const started = Date.now();
    const answer = await call(tg.apiBase, tg.token, 'getUpdates', { offset: 0, timeout: 30 });
    expect(answer.body).toEqual({ ok: true, result: [] });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('failNext and dropNext stack per method', async () => {
    const tg = await startTelegramStandIn();
    tg.failNext('answerCallbackQuery', 'Bad Request: query is too old', 400);
    tg.dropNext('answerCallbackQuery');
    const first = await call(tg.apiBase, tg.token, 'answerCallbackQuery', {
      callback_query_id: 'c',
    });
    expect(first.body.description).toBe('Bad Request: query is too old');
    await expect(
      call(tg.apiBase, tg.token, 'answerCallbackQuery', { callback_query_id: 'c' }),
    ).rejects.toThrow();
    const third = await call(tg.apiBase, tg.token, 'answerCallbackQuery', {
      callback_query_id: 'c',
    });
    expect(third.body).toEqual({ ok: true, result: true });
    expect(tg.calls('answerCallbackQuery')).toHaveLength(3);
  });
});
