/**
 * The `callback_data` of a card's buttons (CONTRACT, Chat callbacks):
 * `<action>:<approval_id>:<nonce>`, at most 64 bytes because the chat API caps it there.
 */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** CONTRACT, Chat callbacks: approval ids are at most 38 characters (a UUID fits). */
export const APPROVAL_ID_MAX_LENGTH = 38;

/** Decision actions consume the nonce; information actions do not (CONTRACT, Chat callbacks). */
export const DECISION_ACTIONS = ['approve', 'reject'] as const;
export const INFORMATION_ACTIONS = ['details', 'logs', 'metrics', 'analyze'] as const;
export type CardAction = (typeof DECISION_ACTIONS)[number] | (typeof INFORMATION_ACTIONS)[number];

export function isDecisionAction(action: string): boolean {
  return (DECISION_ACTIONS as readonly string[]).includes(action);
}

export function isInformationAction(action: string): boolean {
  return (INFORMATION_ACTIONS as readonly string[]).includes(action);
}

export class CallbackDataTooLongError extends Error {
  constructor(
    readonly approvalId: string,
    readonly bytes: number,
  ) {
    super(
      `callback_data of ${bytes} bytes (the chat API takes ${CALLBACK_DATA_MAX_BYTES}): ` +
        `approval id "${approvalId}" has ${Array.from(approvalId).length} characters ` +
        `(at most ${APPROVAL_ID_MAX_LENGTH}, CONTRACT, Chat callbacks)`,
    );
    this.name = 'CallbackDataTooLongError';
  }
}

/**
 * Builds one button's data. Throws CallbackDataTooLongError for an approval id over the
 * contract's 38 characters, and for data past 64 bytes (multi-byte characters in the id).
 */
export function formatCallbackData(action: CardAction, approvalId: string, nonce: string): string {
  const data = `${action}:${approvalId}:${nonce}`;
  const bytes = Buffer.byteLength(data, 'utf8');
  if (bytes > CALLBACK_DATA_MAX_BYTES || Array.from(approvalId).length > APPROVAL_ID_MAX_LENGTH) {
    throw new CallbackDataTooLongError(approvalId, bytes);
  }
  return data;
}

export interface ParsedCallbackData {
  /** As sent; not checked against CardAction, so the handler can answer `Unknown action`. */
  action: string;
  approvalId: string;
  nonce: string;
}

/**
 * Splits `<action>:<approval_id>:<nonce>` at its first and last colon, so an approval id
 * that itself holds a colon still comes back whole. Null when a part is missing.
 */
export function parseCallbackData(data: string): ParsedCallbackData | null {
  const first = data.indexOf(':');
  const last = data.lastIndexOf(':');
  if (first <= 0 || last === first || last === data.length - 1) return null;
  const approvalId = data.slice(first + 1, last);
  if (!approvalId) return null;
  return { action: data.slice(0, first), approvalId, nonce: data.slice(last + 1) };
}

/** One `callback_query` that reached the service, with its data split. */
export interface ParsedCallback extends ParsedCallbackData {
  callbackId: string;
  userId: number;
}

/**
 * spec, Callback handling order, steps 1 and 2: `not_callback` for an update without a
 * callback_query; `invalid` when the callback id, the data or the user id is missing, or the
 * data is not `<action>:<approval_id>:<nonce>` (parseCallbackData). A nonce that is not one
 * the service issued is the gateway's `Invalid nonce` (step 3), not invalid data.
 */
export function parseCallbackUpdate(update: unknown): ParsedCallback | 'not_callback' | 'invalid' {
  const query = (update as { callback_query?: unknown } | null)?.callback_query;
  if (query === undefined || query === null) return 'not_callback';
  if (typeof query !== 'object') return 'invalid';
  const { id, data, from } = query as { id?: unknown; data?: unknown; from?: { id?: unknown } };
  const userId = from?.id;
  if (typeof id !== 'string' || !id || typeof data !== 'string') return 'invalid';
  if (typeof userId !== 'number' || !Number.isInteger(userId)) return 'invalid';
  const parsed = parseCallbackData(data);
  return parsed ? { callbackId: id, userId, ...parsed } : 'invalid';
}

/** CONTRACT, Chat callbacks: "the nonce is 16 lower-case hex characters". */
export const NONCE_PATTERN = /^[0-9a-f]{16}$/;
