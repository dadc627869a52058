import { TRACKER_SIGNATURE_REASONS } from '../../errors.js';
import { equalDigests, equalInConstantTime } from '../../support/constant-time.js';
import { hmacSha256Hex } from '../../support/hmac.js';
import type { CanaryAuth } from './canary.js';

export type TrackerVerdict =
  | { ok: true; checked: false }
  /** `bodyMac`: the HMAC the check computed; its hash keys the stored payload (no second pass). */
  | { ok: true; checked: true; bodyMac: string }
  | { ok: false; reason: string };

/**
 * CONTRACT: `errtracker-hook-signature` is the lower-case hex HMAC-SHA256 of the raw body
 * keyed by ERRTRACKER_CLIENT_SECRET; with no secret it is 401 in prod and skipped elsewhere.
 */
export function verifyTrackerSignature(
  rawBody: Buffer,
  header: string | undefined,
  secret: string | undefined,
  rejectWhenUnset: boolean,
): TrackerVerdict {
  if (!secret) {
    return rejectWhenUnset
      ? { ok: false, reason: TRACKER_SIGNATURE_REASONS.missingSecret }
      : { ok: true, checked: false };
  }
  if (!header) return { ok: false, reason: TRACKER_SIGNATURE_REASONS.missingHeader };
  const bodyMac = hmacSha256Hex(secret, rawBody);
  return equalDigests(header.trim(), bodyMac)
    ? { ok: true, checked: true, bodyMac }
    : { ok: false, reason: TRACKER_SIGNATURE_REASONS.mismatch };
}

/**
 * CONTRACT, Error-tracker canaries: valid operator headers (`operator_key`) or a valid hook
 * signature (`hook_signature`); a skipped check is not a valid signature.
 */
export function authenticateCanary(
  headers: { operatorId?: string; operatorKey?: string; signature?: string },
  rawBody: Buffer,
  operatorKeys: Map<string, string>,
  secret: string | undefined,
): CanaryAuth | undefined {
  const expectedKey = headers.operatorId ? operatorKeys.get(headers.operatorId) : undefined;
  if (expectedKey && headers.operatorKey && equalInConstantTime(headers.operatorKey, expectedKey)) {
    return { method: 'operator_key', operatorId: headers.operatorId ?? null };
  }
  const verdict = verifyTrackerSignature(rawBody, headers.signature, secret, true);
  if (verdict.ok && verdict.checked) return { method: 'hook_signature', operatorId: null };
  return undefined;
}
