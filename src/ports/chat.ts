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

/** A refusal or failure of the chat API; `reason` is what `Chat API error: <reason>` shows. */
export class ChatApiError extends Error {
  constructor(
    readonly method: string,
    readonly reason: string,
  ) {
    super(GATEWAY_ERRORS.chatApiFailed(reason));
    this.name = 'ChatApiError';
  }
}

/**
 * The chat gateway (a Telegram Bot API bot). Methods reject with ChatApiError when the API
 * refuses or cannot be reached.
 */
export interface ChatPort {
  /** False without a bot token: nothing is sent, and callers skip the chat. */
  readonly configured: boolean;
  sendMessage(
    text: string,
    keyboard?: InlineKeyboard,
  ): Promise<{ message_id: number; raw: Record<string, unknown> }>;
  /** Replaces a message's text; `keyboard: null` removes its buttons. */
  editMessage(messageId: number, text: string, keyboard: InlineKeyboard | null): Promise<void>;
  answerCallback(callbackQueryId: string, text?: string): Promise<void>;
  /** Long polling: waits up to `timeoutSeconds` for updates after `offset`. */
  getUpdates(offset: number, timeoutSeconds: number, signal: AbortSignal): Promise<ChatUpdate[]>;
}
