import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createFloodControl,
  type FloodLimit,
  tooManyRequests,
} from '../../bench/lib/chat-flood-control.js';
import type { ChatUpdate, InlineKeyboard } from '../../src/ports/chat.js';
import { atFileEnd } from './file-end.js';
import { waitFor } from './wait-for.js';

/**
 * A Telegram Bot API stand-in: a real HTTP server on 127.0.0.1 that answers
 * `POST /bot<token>/<method>` the way the Bot API does, keeps the messages it was sent, and
 * serves queued updates to long polls.
 *
 *   const tg = await startTelegramStandIn();
 *   const { app } = await buildTestApp({ env: { CHAT_BOT_TOKEN: tg.token, CHAT_CHAT_ID: '4242',
 *     CHAT_API_BASE: tg.apiBase, CHAT_POLLING: 'false' } });
 *   ... tg.calls('sendMessage')[0]!.body.reply_markup ...
 *   tg.press(messageId, 'approve', 111);      // queues the callback a button press sends
 *   await tg.waitForCalls('answerCallbackQuery');
 *   tg.message(messageId)?.reply_markup;      // undefined once the buttons are gone
 *
 * Faithful where our code depends on it: `{ok, result}` and `{ok:false, error_code,
 * description}` answers; 401 for a wrong token; message ids rising per server;
 * `message is not modified` for an edit that changes nothing; `message to edit not found`;
 * BUTTON_DATA_INVALID past 64 bytes of callback_data; getUpdates drops updates below
 * `offset`, holds up to `timeout` seconds, and a second poll ends a held one with 409;
 * flood control (`floodLimit`, `rateLimitNext`): 429 with `parameters.retry_after`, and a
 * message call made before that wait is over is refused again and counted.
 * Every server is closed after the test file.
 */

export type TelegramMethod =
  | 'sendMessage'
  | 'editMessageText'
  | 'editMessageReplyMarkup'
  | 'answerCallbackQuery'
  | 'getUpdates';

/** The members of a request body our code sends; others are kept as they came. */
export interface TelegramCallBody {
  chat_id?: string | number;
  message_id?: number;
  text?: string;
  parse_mode?: string;
  reply_markup?: { inline_keyboard?: InlineKeyboard };
  callback_query_id?: string;
  offset?: number;
  timeout?: number;
  limit?: number;
  allowed_updates?: string[];
  [member: string]: unknown;
}

export interface RecordedCall {
  method: string;
  body: TelegramCallBody;
  /** Date.now() when it arrived. */
  at: number;
  /** A message call that came while a `retry_after` this stand-in announced still ran. */
  duringWait: boolean;
  /** The HTTP status answered; undefined while held or when the connection was dropped. */
  status?: number;
}

export interface StandInMessage {
  message_id: number;
  chat_id: string | number;
  text: string;
  /** Absent when the message has no buttons (never sent or removed by an edit). */
  reply_markup?: { inline_keyboard: InlineKeyboard };
  edits: number;
}

export interface TelegramStandIn {
  /** CHAT_API_BASE */
  apiBase: string;
  /** CHAT_BOT_TOKEN; calls with another token get 401 Unauthorized and are not recorded. */
  token: string;
  /** The calls of one method (all calls without one), oldest first. */
  calls(method?: TelegramMethod): RecordedCall[];
  /** Waits until `method` has been called at least `count` times; returns those calls. */
  waitForCalls(method: TelegramMethod, count?: number, timeoutMs?: number): Promise<RecordedCall[]>;
  /** A message as it stands after every edit. */
  message(messageId: number): StandInMessage | undefined;
  /** Every message in the chat, as it stands, oldest first. */
  messages(): StandInMessage[];
  /** Adds an update for getUpdates (update_id assigned when absent); returns its update_id. */
  queueUpdate(update: Omit<ChatUpdate, 'update_id'> & { update_id?: number }): number;
  /** Queues the callback a user sends by pressing the `action` button of a sent message. */
  press(messageId: number, action: string, userId: number, username?: string): number;
  /** The next call of `method` answers `{ok:false, error_code, description}`. Stacks. */
  failNext(method: TelegramMethod, description?: string, errorCode?: number): void;
  /** The next call of `method` gets its connection dropped without an answer. Stacks. */
  dropNext(method: TelegramMethod): void;
  /**
   * A slow chat API: the next call of `method` is carried out at once (a message shows in
   * the chat) but its answer is held until `release`. `arrived` resolves when the call came.
   * With `carriedOut: 'on release'` the call itself waits for `release` (nothing shows in the
   * chat until then), and a client that goes away meanwhile never gets it carried out.
   */
  holdNext(
    method: TelegramMethod,
    options?: { carriedOut?: 'at once' | 'on release' },
  ): { arrived: Promise<void>; release(): void };
  /** The next message call (send or edit) is answered 429 with `retry_after`. Stacks. */
  rateLimitNext(retryAfterSeconds: number): void;
  /** Like the Bot API in a group: past `messages` per `perSeconds`, 429. Undefined: no limit. */
  floodLimit(limit: FloodLimit | undefined): void;
  /** How many message calls were answered 429. */
  rateLimited(): number;
  /** Forgets the recorded calls (messages, updates and failures stay). */
  clearCalls(): void;
  close(): Promise<void>;
}

export interface StandInOptions {
  token?: string;
  /** Flood control from the start (see `floodLimit`). */
  floodLimit?: FloodLimit;
  /** Caps how long a getUpdates is held, whatever `timeout` it asks for. */
  maxLongPollMs?: number;
}

/** A `callback_query` update as the Bot API delivers it for a button press. */
export function callbackUpdate(options: {
  data: string;
  userId: number;
  username?: string;
  messageId?: number;
  messageText?: string;
  callbackId?: string;
  updateId?: number;
}): Omit<ChatUpdate, 'update_id'> & { update_id?: number } {
  callbackIds += 1;
  return {
    ...(options.updateId !== undefined ? { update_id: options.updateId } : {}),
    callback_query: {
      id: options.callbackId ?? `cb-${callbackIds}`,
      data: options.data,
      from: {
        id: options.userId,
        username: options.username ?? `user${options.userId}`,
        first_name: options.username ?? `User ${options.userId}`,
      },
      message: { message_id: options.messageId ?? 1, text: options.messageText ?? '' },
    },
  };
}
let callbackIds = 0;

const NOT_MODIFIED =
  'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a content and reply markup of the current message';

type Answer = { status: number; body: Record<string, unknown> };
const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
const refuse = (description: string, code = 400): Answer => ({
  status: code,
  body: { ok: false, error_code: code, description },
});

interface Poll {
  offset: number;
  limit: number;
  answer(result: Answer): void;
  /** The client went away (an aborted poll): forget it without answering. */
  cancel(): void;
}

export async function startTelegramStandIn(options: StandInOptions = {}): Promise<TelegramStandIn> {
  const token = options.token ?? '123456:stand-in-SECRET-token';
  const recorded: RecordedCall[] = [];
  const messages = new Map<number, StandInMessage>();
  const updates: ChatUpdate[] = [];
  const failures = new Map<string, Array<Answer | 'drop'>>();
  const holds = new Map<
    string,
    Array<{ arrive(): void; released: Promise<void>; onRelease: boolean }>
  >();
  let nextMessageId = 1;
  let nextUpdateId = 1000;
  let heldPoll: Poll | undefined;
  const flood = createFloodControl(options.floodLimit);

  const pending = (offset: number, limit: number) =>
    updates.filter((u) => u.update_id >= offset).slice(0, limit);

  function wakePoll() {
    if (!heldPoll) return;
    const batch = pending(heldPoll.offset, heldPoll.limit);
    if (batch.length > 0) heldPoll.answer(ok(batch));
  }

  function getUpdates(
    body: TelegramCallBody,
    reply: (answer: Answer) => void,
    res: http.ServerResponse,
  ) {
    const offset = typeof body.offset === 'number' ? body.offset : 0;
    const limit = typeof body.limit === 'number' ? body.limit : 100;
    // Bot API: an offset confirms every update below it; they are never served again.
    for (let i = updates.length - 1; i >= 0; i--) {
      if (updates[i]!.update_id < offset) updates.splice(i, 1);
    }
    heldPoll?.answer(
      refuse(
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
        409,
      ),
    );
    const batch = pending(offset, limit);
    const holdMs = Math.min((body.timeout ?? 0) * 1000, options.maxLongPollMs ?? Infinity);
    if (batch.length > 0 || holdMs <= 0) return reply(ok(batch));
    const poll: Poll = {
      offset,
      limit,
      answer(result) {
        poll.cancel();
        reply(result);
      },
      cancel() {
        clearTimeout(timer);
        if (heldPoll === poll) heldPoll = undefined;
      },
    };
    const timer = setTimeout(() => poll.answer(ok(pending(offset, limit))), holdMs);
    heldPoll = poll;
    res.on('close', () => poll.cancel());
  }

  function editMessage(body: TelegramCallBody, withText: boolean): Answer {
    const message = messages.get(body.message_id ?? -1);
    if (!message || String(message.chat_id) !== String(body.chat_id)) {
      return refuse('Bad Request: message to edit not found');
    }
    const keyboard = body.reply_markup?.inline_keyboard ?? [];
    const markup = keyboard.length > 0 ? { inline_keyboard: keyboard } : undefined;
    const text = withText ? (body.text ?? '') : message.text;
    if (withText && !text) return refuse('Bad Request: message text is empty');
    if (text === message.text && JSON.stringify(markup) === JSON.stringify(message.reply_markup)) {
      return refuse(NOT_MODIFIED);
    }
    Object.assign(message, { text, reply_markup: markup, edits: message.edits + 1 });
    if (!markup) delete message.reply_markup;
    return ok(messageView(message));
  }

  function sendMessage(body: TelegramCallBody): Answer {
    if (body.chat_id === undefined || body.chat_id === '') {
      return refuse('Bad Request: chat_id is empty');
    }
    if (!body.text) return refuse('Bad Request: message text is empty');
    if (body.text.length > 4096) return refuse('Bad Request: message is too long');
    const keyboard = body.reply_markup?.inline_keyboard ?? [];
    const buttons = keyboard.flat();
    if (buttons.some((b) => Buffer.byteLength(b.callback_data ?? '', 'utf8') > 64)) {
      return refuse('Bad Request: BUTTON_DATA_INVALID');
    }
    const message: StandInMessage = {
      message_id: nextMessageId++,
      chat_id: body.chat_id,
      text: body.text,
      ...(keyboard.length > 0 ? { reply_markup: { inline_keyboard: keyboard } } : {}),
      edits: 0,
    };
    messages.set(message.message_id, message);
    return ok(messageView(message));
  }

  function handle(
    method: string,
    body: TelegramCallBody,
    reply: (answer: Answer) => void,
    res: http.ServerResponse,
  ) {
    switch (method) {
      case 'sendMessage':
        return reply(sendMessage(body));
      case 'editMessageText':
        return reply(editMessage(body, true));
      case 'editMessageReplyMarkup':
        return reply(editMessage(body, false));
      case 'answerCallbackQuery':
        return reply(body.callback_query_id ? ok(true) : refuse('Bad Request: query is invalid'));
      case 'getUpdates':
        return getUpdates(body, reply, res);
      default:
        return reply(refuse('Not Found', 404));
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let reply = (answer: Answer) => {
        if (res.writableEnded || res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      };
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? '');
      if (!match || match[1] !== token) return reply(refuse('Unauthorized', 401));
      const method = match[2]!;
      let body: TelegramCallBody = {};
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        body = text ? (JSON.parse(text) as TelegramCallBody) : {};
      } catch {
        return reply(refuse("Bad Request: can't parse JSON"));
      }
      const at = Date.now();
      const verdict = flood.judge(method, at);
      const call: RecordedCall = { method, body, at, duringWait: verdict.duringWait };
      recorded.push(call);
      const answer = reply;
      reply = (result: Answer) => {
        call.status = result.status;
        answer(result);
      };
      if (verdict.retryAfter !== undefined) {
        return reply({ status: 429, body: tooManyRequests(verdict.retryAfter) });
      }
      const failure = failures.get(method)?.shift();
      if (failure === 'drop') return void res.socket?.destroy();
      if (failure) return reply(failure);
      const hold = holds.get(method)?.shift();
      if (hold?.onRelease) {
        let gone = false;
        res.on('close', () => {
          gone = true;
        });
        hold.arrive();
        void hold.released.then(() => {
          if (!gone) handle(method, body, reply, res);
        });
        return;
      }
      if (hold) {
        const answerLater = reply;
        reply = (result) => void hold.released.then(() => answerLater(result));
        hold.arrive();
      }
      handle(method, body, reply, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const addFailure = (method: string, failure: Answer | 'drop') => {
    failures.set(method, [...(failures.get(method) ?? []), failure]);
  };

  const standIn: TelegramStandIn = {
    apiBase: `http://127.0.0.1:${port}`,
    token,
    calls: (method) => recorded.filter((call) => method === undefined || call.method === method),
    waitForCalls: (method, count = 1, timeoutMs = 5000) =>
      waitFor(
        async () => {
          const calls = standIn.calls(method);
          return calls.length >= count ? calls : undefined;
        },
        { timeoutMs, intervalMs: 10, what: `${count} ${method} call(s)` },
      ),
    message: (messageId) => messages.get(messageId),
    messages: () => [...messages.values()],
    queueUpdate(update) {
      const updateId = update.update_id ?? nextUpdateId;
      nextUpdateId = Math.max(nextUpdateId, updateId + 1);
      updates.push({ ...update, update_id: updateId });
      wakePoll();
      return updateId;
    },
    press(messageId, action, userId, username) {
      const message = messages.get(messageId);
      const button = message?.reply_markup?.inline_keyboard
        .flat()
        .find((b) => b.callback_data.startsWith(`${action}:`));
      if (!message || !button) throw new Error(`message ${messageId} has no ${action} button`);
      return standIn.queueUpdate(
        callbackUpdate({
          data: button.callback_data,
          userId,
          username,
          messageId,
          messageText: message.text,
        }),
      );
    },
    failNext: (method, description = 'Bad Request: chat not found', errorCode = 400) =>
      addFailure(method, refuse(description, errorCode)),
    dropNext: (method) => addFailure(method, 'drop'),
    holdNext(method, options = {}) {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => {
        arrive = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const onRelease = options.carriedOut === 'on release';
      holds.set(method, [...(holds.get(method) ?? []), { arrive, released, onRelease }]);
      return { arrived, release };
    },
    rateLimitNext: (seconds) => flood.refuseNext(seconds),
    floodLimit: (limit) => flood.setLimit(limit),
    rateLimited: () => flood.refused(),
    clearCalls: () => {
      recorded.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        heldPoll?.answer(ok([]));
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  atFileEnd(() => standIn.close());
  return standIn;
}

function messageView(message: StandInMessage) {
  const chatId = Number(message.chat_id);
  return {
    message_id: message.message_id,
    from: { id: 123456, is_bot: true, first_name: 'Stand-in bot', username: 'stand_in_bot' },
    chat: { id: Number.isNaN(chatId) ? message.chat_id : chatId, type: 'group' },
    date: Math.floor(Date.now() / 1000),
    ...(message.edits > 0 ? { edit_date: Math.floor(Date.now() / 1000) } : {}),
    text: message.text,
    ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
  };
}
