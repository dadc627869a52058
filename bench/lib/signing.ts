import crypto from 'node:crypto';

/** One request body with the headers that make it a valid signed webhook delivery. */
export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/** Built independently of src/ on purpose: a bench that shares the service's code could share its bug. */
export function signatureOf(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function signedJson(secret: string, value: unknown): SignedRequest {
  const body = JSON.stringify(value);
  return {
    body,
    headers: { 'content-type': 'application/json', 'x-signature-256': signatureOf(secret, body) },
  };
}

const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

/** The baselines' check of `X-Signature-256`: format, then HMAC-SHA256 in constant time. */
export function validSignature(
  secret: string,
  header: string | string[] | undefined,
  body: Buffer,
): boolean {
  const match = typeof header === 'string' ? SIGNATURE.exec(header.trim()) : null;
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = crypto.createHmac('sha256', secret).update(body).digest();
  return crypto.timingSafeEqual(given, expected);
}

const TRACKER_SIGNATURE = /^[0-9a-f]{64}$/;

/** The error tracker's `errtracker-hook-signature`: lower-case hex HMAC-SHA256, no prefix. */
export function validTrackerSignature(
  secret: string,
  header: string | string[] | undefined,
  body: Buffer,
): boolean {
  if (typeof header !== 'string' || !TRACKER_SIGNATURE.test(header)) return false;
  const expected = crypto.createHmac('sha256', secret).update(body).digest();
  return crypto.timingSafeEqual(Buffer.from(header, 'hex'), expected);
}

/** Plain JSON for targets that take no signature (Alertmanager). */
export function unsignedJson(value: unknown): SignedRequest {
  return { body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
}
