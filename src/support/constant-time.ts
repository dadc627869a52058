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

/**
 * Compares a digest a request presents with the one computed, in constant time. A digest's
 * length is no secret (an HMAC-SHA256 is 64 hex characters), so a wrong length is refused
 * at once, without hashing both sides as a secret's comparison does.
 */
export function equalDigests(given: string, expected: string): boolean {
  const presented = Buffer.from(given);
  const computed = Buffer.from(expected);
  return presented.length === computed.length && crypto.timingSafeEqual(presented, computed);
}
