import crypto from 'node:crypto';

/** The lower-case hex HMAC-SHA256 of `payload` keyed by `secret` (both webhook signatures). */
export function hmacSha256Hex(secret: string, payload: Buffer | string): string {
  return crypto.createHmac('sha256', secret).update(payload).digest('hex');
}
