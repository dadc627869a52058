import {
  ChatApiError,
  type ChatCallOptions,
  type ChatContact,
  type ChatPort,
  type ChatUpdate,
  type InlineKeyboard,
} from '../../ports/chat.js';
import {
  retryUpstream,
  UPSTREAM_RETRY,
  type UpstreamFailure,
  type UpstreamRetryOptions,
  wasRefused,
} from '../../support/upstream-retry.js';

export interface TelegramChatOptions {
  /** CHAT_BOT_TOKEN: part of every URL, so it never appears in an error or a log line. */
  token: string;
  /** CHAT_CHAT_ID; empty when unset, and then sendMessage refuses before any call. */
  chatId: string;
  /** CHAT_API_BASE (CONTRACT: `{base}/bot{token}/{method}`). */
  apiBase: string;
  /** How long a call may take, long polls excepted; default 10 s. */
  timeoutMs?: number;
  /** Retries of a call the API refused for now (429, 5xx) or never received. */
  retry?: UpstreamRetryOptions;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** CONTRACT, Chat callbacks: the service acts on button presses and reads messages. */
const ALLOWED_UPDATES = ['callback_query', 'message'];

/** An edit that changes nothing is a success for us: the message already shows the text. */
const NOT_MODIFIED = 'message is not modified';

type Answer = { ok?: unknown; result?: unknown; description?: unknown } & Record<string, unknown>;

/**
 * The calls that put a message into the chat or change one: held back while a 429's
 * `Retry-After` runs (CONTRACT, Chat under storms). `answerCallbackQuery` is not among them:
 * it shows a notice to the one user who pressed, not a message in the chat, and a button
 * whose answer waits half a minute looks broken. `getUpdates` only reads.
 */
const MESSAGE_METHODS = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup']);

/** A ChatApiError that knows whether sending the call again is safe. */
class TelegramCallError extends ChatApiError {
  constructor(
    method: string,
    reason: string,
    readonly failure: UpstreamFailure,
  ) {
    super(method, reason, failure.kind === 'rate-limited' ? failure.retryAfterMs : undefined);
  }
}

const failureOf = (error: unknown): UpstreamFailure =>
  error instanceof TelegramCallError ? error.failure : { kind: 'final' };

/** For a caller that queues what the flood control refuses: a 429 is final for this call. */
const failureWithoutWaiting = (error: unknown): UpstreamFailure => {
  const failure = failureOf(error);
  return failure.kind === 'rate-limited' ? { kind: 'final' } : failure;
};

/**
 * The Bot API's flood control: HTTP 429 with `parameters.retry_after` in seconds. A 5xx means
 * the call was not carried out. Anything else is final.
 */
function failureOfAnswer(status: number, answer: Answer | undefined): UpstreamFailure {
  if (status === 429) {
    const parameters = answer?.parameters as { retry_after?: unknown } | undefined;
    const seconds = parameters?.retry_after;
    return {
      kind: 'rate-limited',
      retryAfterMs: typeof seconds === 'number' && seconds >= 0 ? seconds * 1000 : 1000,
    };
  }
  return status >= 500 ? { kind: 'server-error' } : { kind: 'final' };
}

/** The chat port on the Telegram Bot API, over global fetch, JSON bodies, plain text. */
export function createTelegramChat(options: TelegramChatOptions): ChatPort {
  const base = options.apiBase.replace(/\/+$/, '');
  const callTimeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retry = options.retry ?? UPSTREAM_RETRY;
  const hideToken = (text: string) =>
    options.token ? text.split(options.token).join('<token>') : text;
  /**
   * Until when the Bot API's last 429 asked us to send nothing. One adapter serves the whole
   * process (create-services.ts), so every sender in it (cards, edits, repair results,
   * information answers, the test push) sees the same wait.
   */
  let floodUntil = 0;
  /**
   * Message calls go out one at a time: a call sent beside another cannot know of the 429
   * the other is about to get, and would reach the chat during the wait. The Bot API takes
   * about one message a second per chat, so the lane costs nothing it would have allowed.
   */
  let messageLane: Promise<unknown> = Promise.resolve();
  let lastContact: ChatContact | null = null;
  const contact = (state: ChatContact['state'], detail: string | null = null) => {
    lastContact = { state, detail, at: Date.now() };
  };

  function callOnce(
    method: string,
    body: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Answer & { result: unknown }> {
    if (!MESSAGE_METHODS.has(method)) return callNow(method, body, timeoutMs, signal);
    const turn = messageLane.then(() => callNow(method, body, timeoutMs, signal));
    messageLane = turn.catch(() => undefined);
    return turn;
  }

  async function callNow(
    method: string,
    body: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Answer & { result: unknown }> {
    const holdMs = MESSAGE_METHODS.has(method) ? floodUntil - Date.now() : 0;
    if (holdMs > 0) {
      // Never sent: the retry below (or the caller's queue) sends it once the wait is over.
      throw new TelegramCallError(
        method,
        `Too Many Requests: retry after ${Math.ceil(holdMs / 1000)}`,
        {
          kind: 'rate-limited',
          retryAfterMs: holdMs,
        },
      );
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${base}/bot${options.token}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      // The caller's own abort (shutdown) is not a chat failure: it gets its reason back.
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        contact('unreachable', `no answer within ${timeoutMs} ms`);
        throw new TelegramCallError(method, `no answer within ${timeoutMs} ms`, { kind: 'final' });
      }
      const failure: UpstreamFailure = wasRefused(error) ? { kind: 'refused' } : { kind: 'final' };
      const reason = hideToken(networkReason(error));
      contact('unreachable', reason);
      throw new TelegramCallError(method, reason, failure);
    }
    const answer = parseAnswer(text);
    if (answer?.ok === true) {
      contact('reachable');
      return answer as Answer & { result: unknown };
    }
    const description =
      typeof answer?.description === 'string' && answer.description
        ? answer.description
        : `HTTP ${status}`;
    const failure = failureOfAnswer(status, answer);
    if (failure.kind === 'rate-limited') {
      floodUntil = Math.max(floodUntil, Date.now() + failure.retryAfterMs);
    }
    contact(failure.kind === 'rate-limited' ? 'rate_limited' : 'error', hideToken(description));
    throw new TelegramCallError(method, hideToken(description), failure);
  }

  // A long poll is not retried here: the polling loop already tries again, with its own pause.
  const call = (method: string, body: Record<string, unknown>, callOptions?: ChatCallOptions) =>
    retryUpstream(
      () => callOnce(method, body, callTimeoutMs),
      callOptions?.waitOutRateLimit === false ? failureWithoutWaiting : failureOf,
      retry,
    );

  return {
    configured: true,
    rateLimitedUntil: () => floodUntil,
    lastContact: () => lastContact,
    async sendMessage(text: string, keyboard?: InlineKeyboard, callOptions?: ChatCallOptions) {
      if (!options.chatId) throw new ChatApiError('sendMessage', 'CHAT_CHAT_ID is not set');
      const answer = await call(
        'sendMessage',
        {
          chat_id: options.chatId,
          text,
          ...(keyboard ? { reply_markup: { inline_keyboard: keyboard } } : {}),
        },
        callOptions,
      );
      const messageId = (answer.result as { message_id?: unknown } | null)?.message_id;
      if (typeof messageId !== 'number') {
        throw new ChatApiError('sendMessage', 'answer without a message_id');
      }
      return { message_id: messageId, raw: answer };
    },
    async editMessage(
      messageId: number,
      text: string,
      keyboard: InlineKeyboard | null,
      callOptions?: ChatCallOptions,
    ) {
      try {
        await call(
          'editMessageText',
          {
            chat_id: options.chatId,
            message_id: messageId,
            text,
            // An empty keyboard removes the buttons explicitly (CONTRACT: a decided card loses them).
            reply_markup: { inline_keyboard: keyboard ?? [] },
          },
          callOptions,
        );
      } catch (error) {
        if (error instanceof ChatApiError && error.reason.includes(NOT_MODIFIED)) return;
        throw error;
      }
    },
    async answerCallback(callbackQueryId: string, text?: string) {
      await call('answerCallbackQuery', {
        callback_query_id: callbackQueryId,
        ...(text !== undefined ? { text } : {}),
      });
    },
    async getUpdates(offset: number, timeoutSeconds: number, signal: AbortSignal) {
      // The server holds a long poll up to `timeout` seconds; our own limit must be longer.
      const limitMs = timeoutSeconds * 1000 + callTimeoutMs;
      const answer = await callOnce(
        'getUpdates',
        { offset, timeout: timeoutSeconds, allowed_updates: ALLOWED_UPDATES },
        limitMs,
        signal,
      );
      if (!Array.isArray(answer.result)) {
        throw new ChatApiError('getUpdates', 'answer without an update list');
      }
      return answer.result as ChatUpdate[];
    },
  };
}

function parseAnswer(text: string): Answer | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Answer)
      : undefined;
  } catch {
    return undefined;
  }
}

/** fetch says only `fetch failed`; the cause names what happened (refused, reset, DNS). */
function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error && cause.message
    ? `${error.message}: ${cause.message}`
    : error.message;
}
