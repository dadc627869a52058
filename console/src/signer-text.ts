/**
 * The words of an approval's signatures (CONTRACT, Approvals: critical risk needs two distinct
 * signers). Kept apart from the DOM so that Node tests every sentence the operator reads.
 */

export interface Signatures {
  risk_level: string;
  /** distinct people who approved so far */
  signers: number;
  /** signatures that approve it: 2 when critical */
  signers_needed: number;
  /** who signed, in order (absent until the service lists them) */
  signed_by?: string[] | null;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/** "1 of 2 signers: ops-alice", "0 of 2 signers". */
export function signerProgress({ signers, signers_needed, signed_by }: Signatures): string {
  const count = Math.max(signers, signed_by?.length ?? 0);
  const who = signed_by?.length ? `: ${signed_by.join(', ')}` : '';
  return `${count} of ${signers_needed} ${plural(signers_needed, 'signer', 'signers')}${who}`;
}

/** A critical change is confirmed before it is approved: it cannot be taken back. */
export function needsConfirmation({ risk_level, signers_needed }: Signatures): boolean {
  return signers_needed >= 2 || risk_level === 'critical';
}

/**
 * What an approve answered, in the operator's words: a signature that counts without approving
 * yet says so, and who else must sign; `signersBefore` is the count shown before the press.
 */
export function approveAnswerText(
  status: string,
  approval: Signatures,
  signersBefore = approval.signers,
): string {
  if (status !== 'pending') return `Approved: the approval is now ${status}.`;
  const count = signersBefore + 1;
  const missing = Math.max(approval.signers_needed - count, 1);
  const others =
    missing === 1 ? 'Another operator must sign' : `${missing} more operators must sign`;
  return `Your signature counts: ${count} of ${approval.signers_needed} signers. ${others} to approve.`;
}

const ALREADY_SIGNED = /^Already signed by (.+)$/;

/**
 * The service refuses a second signature by the same person (409 `already_signed`, detail
 * `Already signed by <actor>`): say that it already counts and that a different operator
 * must sign. Null for other refusals.
 */
export function alreadySignedText(refusal: { code?: string; detail: string }): string | null {
  if (refusal.code !== 'already_signed') return null;
  const signer = ALREADY_SIGNED.exec(refusal.detail)?.[1] ?? 'you';
  return `Already signed by ${signer}: your signature counts once. A different operator must sign to approve.`;
}

/** An approval as the page reads it: the signature fields may be absent from older answers. */
export interface ApprovalLike {
  risk_level: string;
  signers?: number;
  signers_needed?: number;
  signed_by?: string[];
  decisions: { actor: string; decision: string }[];
}

/**
 * The signatures of an approval: the service's own fields when it sends them, else what its
 * decisions show (each distinct approver once, in order; critical needs two).
 */
export function signaturesOf(approval: ApprovalLike): Signatures {
  const approvers = [
    ...new Set(
      approval.decisions
        .filter((decision) => decision.decision === 'approve')
        .map((decision) => decision.actor),
    ),
  ];
  const signed_by = approval.signed_by ?? approvers;
  return {
    risk_level: approval.risk_level,
    signers: approval.signers ?? signed_by.length,
    signers_needed: approval.signers_needed ?? (approval.risk_level === 'critical' ? 2 : 1),
    signed_by,
  };
}
