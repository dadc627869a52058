import crypto from 'node:crypto';
import { HMAC_REASONS } from '../../errors.js';
import { hmacSha256Hex } from '../../support/hmac.js';

export type SignatureVerdict =
  | {
      ok: true;
      checked: boolean;
      /** Set for a checked timestamped delivery: the key under which it is accepted once. */
      replayKey?: string;
      /** Seconds from now until the timestamp falls out of tolerance. */
      acceptableFor: number;
    }
  | { ok: false; reason: string };

export interface TimestampTolerance {
  pastSeconds: number;
  futureSeconds: number;
}

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
  tolerance: TimestampTolerance;
}

const SIGNATURE_FORMAT = /^sha256=([0-9a-fA-F]{64})$/;

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
      : { ok: true, checked: false, acceptableFor: 0 };
  }
  if (delivery.signature === undefined) return { ok: false, reason: HMAC_REASONS.missingHeader };
  const match = SIGNATURE_FORMAT.exec(delivery.signature.trim());
  if (!match) return { ok: false, reason: HMAC_REASONS.badFormat };
  let signed: Buffer = delivery.rawBody;
  let acceptableFor = 0;
  if (delivery.timestamp !== undefined) {
    if (!/^\d{1,12}$/.test(delivery.timestamp))
      return { ok: false, reason: HMAC_REASONS.badTimestamp };
    const { pastSeconds, futureSeconds } = policy.tolerance;
    const ageSeconds = policy.nowMs / 1000 - Number(delivery.timestamp);
    if (ageSeconds > pastSeconds || -ageSeconds > futureSeconds) {
      return { ok: false, reason: HMAC_REASONS.staleTimestamp };
    }
    acceptableFor = Math.ceil(pastSeconds - ageSeconds) + 1;
    signed = Buffer.concat([Buffer.from(`${delivery.timestamp}.`), delivery.rawBody]);
  }
  const hex = match[1]!.toLowerCase();
  const given = Buffer.from(hex, 'hex');
  const accepted = policy.secrets.some((secret) =>
    crypto.timingSafeEqual(given, Buffer.from(hmacSha256Hex(secret, signed), 'hex')),
  );
  if (!accepted) return { ok: false, reason: HMAC_REASONS.mismatch };
  return delivery.timestamp === undefined
    ? { ok: true, checked: true, acceptableFor }
    : { ok: true, checked: true, replayKey: hex, acceptableFor };
}
