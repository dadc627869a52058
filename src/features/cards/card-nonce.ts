import crypto from 'node:crypto';

/** CONTRACT, Chat callbacks: a nonce is "valid 24 hours". */
export const CARD_NONCE_TTL_MS = 24 * 60 * 60 * 1000;

/** CONTRACT, Chat callbacks: "16 lower-case hex characters, one per card". */
export function newCardNonce(): string {
  return crypto.randomBytes(8).toString('hex');
}

/**
 * The operation log is readable through the API, so it names a card by a hash prefix of
 * its nonce: enough to match a callback, useless to forge one.
 */
export function nonceHashPrefix(nonce: string): string {
  return crypto.createHash('sha256').update(nonce).digest('hex').slice(0, 12);
}
