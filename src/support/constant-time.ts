import crypto from 'node:crypto';

function digest(text: string): Buffer {
  return crypto.createHash('sha256').update(text).digest();
}

/**
 * Compares a secret a request presents with the configured one in constant time. Both are
 * hashed first, so the comparison is of equal lengths and the secret's length does not show.
 */
export function equalInConstantTime(given: string, expected: string): boolean {
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
