import { beforeEach, describe, expect, it } from 'vitest';
import { createTelegramChat } from '../../src/adapters/telegram/telegram-chat.js';
import { ChatApiError, type ChatPort, type InlineKeyboard } from '../../src/ports/chat.js';
import {
  callbackUpdate,
  startTelegramStandIn,
  type TelegramStandIn,
} from '../helpers/telegram-stand-in.js';
import { startUpstream } from '../helpers/upstreams.js';

const keyboard: InlineKeyboard = [
  [
    { text: 'Approve', callback_data: 'approve:a1:0123456789abcdef' },
    { text: 'Reject', callback_data: 'reject:a1:0123456789abcdef' },
  ],
];

let tg: TelegramStandIn;
let chat: ChatPort;
beforeEach(async () => {
  tg = await startTelegramStandIn();
  chat = createTelegramChat({ token: tg.token, chatId: '4242', apiBase: tg.apiBase });
});

/** The rejection of `promise`, which must reject. */
async function failure(promise: Promise<unknown>): Promise<ChatApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChatApiError);
  return error as ChatApiError;
}

function expectNoToken(error: Error, token: string) {
  const secret = token.split(':')[1]!;
  for (const text of [error.message, (error as ChatApiError).reason, String(error.stack)]) {
    expect(text).not.toContain(secret);
  }
}

describe('telegram chat: request bodies', () => {
  it('sendMessage posts the chat, the text and the inline keyboard, as plain text', async () => {
    const sent = await chat.sendMessage('card text', keyboard);
    const [call] = tg.calls('sendMessage');
    expect(call!.body).toEqual({
      chat_id: '4242',
      text: 'card text',
      reply_markup: { inline_keyboard: keyboard },
    });
    expect(sent.message_id).toBe(1);
    expect(sent.raw).toMatchObject({ ok: true, result: { message_id: 1, text: 'card text' } });
  });

  it('sendMessage without a keyboard sends no reply_markup', async () => {
    await chat.sendMessage('hello');
    expect(tg.calls('sendMessage')[0]!.body).toEqual({ chat_id: '4242', text: 'hello' });
  });

  it('sendMessage refuses without a chat id, before any call', async () => {
    const noChat = createTelegramChat({ token: tg.token, chatId: '', apiBase: tg.apiBase });
    const error = await failure(noChat.sendMessage('x'));
    expect(error.reason).toBe('CHAT_CHAT_ID is not set');
    expect(tg.calls()).toEqual([]);
  });

  it('editMessage replaces the text and keeps or removes the buttons', async () => {
    const { message_id } = await chat.sendMessage('v1', keyboard);
    await chat.editMessage(message_id, 'v2', keyboard);
    expect(tg.calls('editMessageText')[0]!.body).toEqual({
      chat_id: '4242',
      message_id,
      text: 'v2',
      reply_markup: { inline_keyboard: keyboard },
    });
    expect(tg.message(message_id)).toMatchObject({
      text: 'v2',
      reply_markup: { inline_keyboard: keyboard },
    });

    await chat.editMessage(message_id, 'decided', null);
    expect(tg.calls('editMessageText')[1]!.body.reply_markup).toEqual({ inline_keyboard: [] });
    expect(tg.message(message_id)?.text).toBe('decided');
    expect(tg.message(message_id)?.reply_markup).toBeUndefined();
  });

  it('treats "message is not modified" as done', async () => {
    const { message_id } = await chat.sendMessage('same', keyboard);
    await expect(chat.editMessage(message_id, 'same', keyboard)).resolves.toBeUndefined();
    expect(tg.calls('editMessageText')).toHaveLength(1);
  });

  it('answerCallback posts the callback id and the text when given', async () => {
    await chat.answerCallback('cb-1', 'Approved');
    await chat.answerCallback('cb-2');
    expect(tg.calls('answerCallbackQuery').map((c) => c.body)).toEqual([
      { callback_query_id: 'cb-1', text: 'Approved' },
      { callback_query_id: 'cb-2' },
    ]);
  });
});

describe('telegram chat: getUpdates', () => {
  const never = new AbortController().signal;

  it('posts offset, timeout and the allowed updates; serves updates from the offset', async () => {
    const first = tg.queueUpdate(callbackUpdate({ data: 'approve:a1:n', userId: 7 }));
    const second = tg.queueUpdate({ message: { text: 'hi' } });
    expect(second).toBe(first + 1);

    const all = await chat.getUpdates(0, 0, never);
    expect(all.map((u) => u.update_id)).toEqual([first, second]);
    expect(all[0]!.callback_query).toMatchObject({ data: 'approve:a1:n', from: { id: 7 } });
    expect(tg.calls('getUpdates')[0]!.body).toEqual({
      offset: 0,
      timeout: 0,
      allowed_updates: ['callback_query', 'message'],
    });

    // An offset confirms what is below it: those updates are gone, even for offset 0.
    expect((await chat.getUpdates(second, 0, never)).map((u) => u.update_id)).toEqual([second]);
    expect((await chat.getUpdates(0, 0, never)).map((u) => u.update_id)).toEqual([second]);
  });

  it('holds a long poll until an update is queued', async () => {
    const started = Date.now();
    const poll = chat.getUpdates(0, 5, never);
    await tg.waitForCalls('getUpdates');
    setTimeout(() => tg.queueUpdate({ message: { text: 'late' } }), 100);
    const updates = await poll;
    expect(updates).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('answers an empty list when the long-poll timeout passes', async () => {
    const started = Date.now();
    await expect(chat.getUpdates(0, 1, never)).resolves.toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('rejects with the abort reason, not a chat error, when the caller aborts', async () => {
    const controller = new AbortController();
    const poll = chat.getUpdates(0, 30, controller.signal);
    await tg.waitForCalls('getUpdates');
    controller.abort();
    const error = await poll.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(ChatApiError);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('telegram chat: errors', () => {
  it('maps a refusal to ChatApiError with the description', async () => {
    tg.failNext('sendMessage');
    const error = await failure(chat.sendMessage('x', keyboard));
    expect(error.method).toBe('sendMessage');
    expect(error.reason).toBe('Bad Request: chat not found');
    expect(error.message).toBe('Chat API error: Bad Request: chat not found');
    expectNoToken(error, tg.token);
  });

  it.each([
    [
      'editMessageText',
      (c: ChatPort) => c.editMessage(99, 'x', null),
      'Bad Request: message to edit not found',
    ],
    ['answerCallbackQuery', (c: ChatPort) => c.answerCallback(''), 'Bad Request: query is invalid'],
  ] as const)('%s refusals carry the description', async (method, act, description) => {
    const error = await failure(act(chat));
    expect(error).toMatchObject({ method, reason: description });
  });

  it('names a wrong token only as Unauthorized', async () => {
    const wrong = createTelegramChat({
      token: '9:WRONG-secret',
      chatId: '4242',
      apiBase: tg.apiBase,
    });
    const error = await failure(wrong.sendMessage('x'));
    expect(error.reason).toBe('Unauthorized');
    expectNoToken(error, '9:WRONG-secret');
  });

  it('maps a dropped connection to a network reason without the token', async () => {
    tg.dropNext('getUpdates');
    const error = await failure(chat.getUpdates(0, 0, new AbortController().signal));
    expect(error.method).toBe('getUpdates');
    expect(error.reason).toMatch(/^fetch failed/);
    expectNoToken(error, tg.token);
  });

  it('maps a refused connection to a network reason without the token', async () => {
    await tg.close();
    const error = await failure(chat.answerCallback('cb'));
    expect(error.reason).toMatch(/ECONNREFUSED/);
    expectNoToken(error, tg.token);
  });

  it('uses the HTTP status when the answer is not the API JSON', async () => {
    const upstream = await startUpstream(() => ({ status: 502, body: 'bad gateway' }));
    const viaProxy = createTelegramChat({ token: tg.token, chatId: '1', apiBase: upstream.url });
    expect((await failure(viaProxy.sendMessage('x'))).reason).toBe('HTTP 502');
  });

  it('hides the token should an answer echo it', async () => {
    const upstream = await startUpstream(() => ({
      status: 401,
      body: { ok: false, error_code: 401, description: `token ${tg.token} revoked` },
    }));
    const echo = createTelegramChat({ token: tg.token, chatId: '1', apiBase: upstream.url });
    const error = await failure(echo.sendMessage('x'));
    expect(error.reason).toBe('token <token> revoked');
    expectNoToken(error, tg.token);
  });

  it('gives up after timeoutMs', async () => {
    const slow = await startUpstream(
      () => new Promise((resolve) => setTimeout(() => resolve({ body: { ok: true } }), 1500)),
    );
    const impatient = createTelegramChat({
      token: tg.token,
      chatId: '1',
      apiBase: slow.url,
      timeoutMs: 200,
    });
    const error = await failure(impatient.answerCallback('cb'));
    expect(error.reason).toBe('no answer within 200 ms');
  });

  it('gives a long poll its timeout plus timeoutMs', async () => {
    const slow = await startUpstream(
      () =>
        new Promise((resolve) =>
          setTimeout(() => resolve({ body: { ok: true, result: [] } }), 600),
        ),
    );
    const polling = createTelegramChat({
      token: tg.token,
      chatId: '1',
      apiBase: slow.url,
      timeoutMs: 200,
    });
    await expect(polling.getUpdates(0, 1, new AbortController().signal)).resolves.toEqual([]);
  });
});
