import { GATEWAY_ERRORS } from '../errors.js';

/** One inline button: what it says and the `callback_data` it sends back (≤ 64 bytes). */
export interface InlineButton {
  text: string;
  callback_data: string;
}

export type InlineKeyboard = InlineButton[][];

/** The members of a chat update the service reads (spec, Chat update). */
export interface ChatUpdate {
  update_id: number;
  callback_query?: {
    id?: string;
    data?: string;
    from?: { id?: number; username?: string; first_name?: string };
    message?: { message_id?: number; text?: string };
  } | null;
  message?: Record<string, unknown> | null;
}

/**
 * A refusal or failure of the chat API; `reason` is what `Chat API error: <reason>` shows.
 * `retryAfterMs` is set when the API's flood control refused the call (HTTP 429) or its
 * `Retry-After` was still running, so the call never left.
 */
export class ChatApiError extends Error {
  constructor(
    readonly method: string,
    readonly reason: string,
    readonly retryAfterMs?: number,
  ) {
    super(GATEWAY_ERRORS.chatApiFailed(reason));
    this.name = 'ChatApiError';
  }
}

/** True for a call refused by the chat's flood control: sending it later may succeed. */
export const isRateLimited = (error: unknown): error is ChatApiError =>
  error instanceof ChatApiError && error.retryAfterMs !== undefined;

/** How a message call behaves while the chat's flood control holds messages back. */
export interface ChatCallOptions {
  /**
   * False: a 429, or a `Retry-After` still running, fails the call at once (`isRateLimited`)
   * instead of waiting it out, so a caller with its own queue (cards) keeps the order.
   */
  waitOutRateLimit?: boolean;
}

/**
 * How the chat API answered the last call that reached for it: `reachable` (it answered
 * ok), `rate_limited` (429), `unreachable` (refused, reset, unresolved or no answer in time)
 * or `error` (it answered with any other refusal, such as a wrong token).
 */
export interface ChatContact {
  state: 'reachable' | 'rate_limited' | 'unreachable' | 'error';
  /** The refusal as the API or the network put it; null when it answered ok. */
  detail: string | null;
  /** Epoch ms. */
  at: number;
}

/**
 * The chat gateway (a Telegram Bot API bot). Methods reject with ChatApiError when the API
 * refuses or cannot be reached. CONTRACT, Chat under storms: after a 429 no message is sent
 * or edited until its `Retry-After` has passed, whoever in the process sends it.
 */
export interface ChatPort {
  /** False without a bot token: nothing is sent, and callers skip the chat. */
  readonly configured: boolean;
  sendMessage(
    text: string,
    keyboard?: InlineKeyboard,
    options?: ChatCallOptions,
  ): Promise<{ message_id: number; raw: Record<string, unknown> }>;
  /** Replaces a message's text; `keyboard: null` removes its buttons. */
  editMessage(
    messageId: number,
    text: string,
    keyboard: InlineKeyboard | null,
    options?: ChatCallOptions,
  ): Promise<void>;
  /** When the chat takes messages again after a 429 (epoch ms); 0 or past: it takes them now. */
  rateLimitedUntil(): number;
  /** The outcome of the last call sent to the chat API; null before the first. */
  lastContact(): ChatContact | null;
  answerCallback(callbackQueryId: string, text?: string): Promise<void>;
  /** Long polling: waits up to `timeoutSeconds` for updates after `offset`. */
  getUpdates(offset: number, timeoutSeconds: number, signal: AbortSignal): Promise<ChatUpdate[]>;
}
