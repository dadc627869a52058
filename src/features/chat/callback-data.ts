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

/** CONTRACT, Chat callbacks: "the nonce is 16 lower-case hex characters". */
export const NONCE_PATTERN = /^[0-9a-f]{16}$/;
