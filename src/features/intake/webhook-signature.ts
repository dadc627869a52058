import crypto from 'node:crypto';
import { HMAC_REASONS } from '../../errors.js';

export type SignatureVerdict = { ok: true; checked: boolean } | { ok: false; reason: string };

export interface SignedDelivery {
  rawBody: Buffer;
  /** `X-Signature-256` */
  signature?: string;
  /** `X-Signature-Timestamp` (CONTRACT, Extensions): unix seconds, opt-in replay protection */
  timestamp?: string;
}

export interface SignaturePolicy {
  /** The current secret first, then the previous one during a rotation. */
  secrets: string[];
  /** spec, Authentication: "Missing secret: in the prod environment the request is rejected" */
  rejectWhenUnset: boolean;
  nowMs: number;
  toleranceSeconds: number;
}

const SIGNATURE_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;

export function hmacSha256Hex(secret: string, payload: Buffer | string): string {
  return crypto.createHmac('sha256', secret).update(payload).digest('hex');
}

/**
 * spec, Authentication: `X-Signature-256: sha256=<hex>`, an HMAC-SHA256 of the raw body,
 * compared in constant time. With a timestamp header the signed text is `<ts>.<raw body>`.
 */
export function verifyWebhookSignature(
  delivery: SignedDelivery,
  policy: SignaturePolicy,
): SignatureVerdict {
  if (policy.secrets.length === 0) {
    return policy.rejectWhenUnset
      ? { ok: false, reason: HMAC_REASONS.missingSecret }
      : { ok: true, checked: false };
  }
  if (delivery.signature === undefined) return { ok: false, reason: HMAC_REASONS.missingHeader };
  const match = SIGNATURE_FORMAT.exec(delivery.signature.trim());
  if (!match) return { ok: false, reason: HMAC_REASONS.badFormat };
  let signed: Buffer = delivery.rawBody;
  if (delivery.timestamp !== undefined) {
    if (!/^\d{1,12}$/.test(delivery.timestamp))
      return { ok: false, reason: HMAC_REASONS.badTimestamp };
    const ageSeconds = Math.abs(policy.nowMs / 1000 - Number(delivery.timestamp));
    if (ageSeconds > policy.toleranceSeconds) {
      return { ok: false, reason: HMAC_REASONS.staleTimestamp };
    }
    signed = Buffer.concat([Buffer.from(`${delivery.timestamp}.`), delivery.rawBody]);
  }
  const given = Buffer.from(match[1]!.toLowerCase(), 'hex');
  const accepted = policy.secrets.some((secret) =>
    crypto.timingSafeEqual(given, Buffer.from(hmacSha256Hex(secret, signed), 'hex')),
  );
  return accepted ? { ok: true, checked: true } : { ok: false, reason: HMAC_REASONS.mismatch };
}
