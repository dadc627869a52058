import { describe, expect, it } from 'vitest';
import {
  alreadySignedText,
  approveAnswerText,
  needsConfirmation,
  signaturesOf,
  signerProgress,
} from '../../console/src/signer-text.js';

const critical = {
  risk_level: 'critical',
  signers: 1,
  signers_needed: 2,
  signed_by: ['ops-alice'],
};
const medium = { risk_level: 'medium', signers: 0, signers_needed: 1, signed_by: [] };

describe('signer wording', () => {
  it('counts signers and names them', () => {
    expect(signerProgress(critical)).toBe('1 of 2 signers: ops-alice');
    expect(signerProgress({ ...critical, signers: 0, signed_by: [] })).toBe('0 of 2 signers');
    expect(signerProgress(medium)).toBe('0 of 1 signer');
    expect(signerProgress({ ...critical, signers: 2, signed_by: ['console_a', 'console_b'] })).toBe(
      '2 of 2 signers: console_a, console_b',
    );
    // Before the service lists the signers, the count alone.
    expect(signerProgress({ risk_level: 'critical', signers: 1, signers_needed: 2 })).toBe(
      '1 of 2 signers',
    );
  });

  it('asks to confirm critical approvals only', () => {
    expect(needsConfirmation(critical)).toBe(true);
    expect(needsConfirmation({ ...medium, risk_level: 'critical' })).toBe(true);
    expect(needsConfirmation({ ...medium, signers_needed: 2 })).toBe(true);
    expect(needsConfirmation(medium)).toBe(false);
  });

  it('says that a first signature counts and another operator must sign', () => {
    const fresh = { ...critical, signers: 0, signed_by: [] };
    expect(approveAnswerText('pending', fresh)).toBe(
      'Your signature counts: 1 of 2 signers. Another operator must sign to approve.',
    );
    expect(approveAnswerText('pending', { ...fresh, signers_needed: 3 })).toBe(
      'Your signature counts: 1 of 3 signers. 2 more operators must sign to approve.',
    );
    expect(approveAnswerText('executing', critical)).toBe(
      'Approved: the approval is now executing.',
    );
    expect(approveAnswerText('approved', medium)).toBe('Approved: the approval is now approved.');
  });

  it('explains a second signature by the same operator, told by its code', () => {
    expect(
      alreadySignedText({ code: 'already_signed', detail: 'Already signed by console_alice' }),
    ).toBe(
      'Already signed by console_alice: your signature counts once. A different operator must sign to approve.',
    );
    expect(
      alreadySignedText({ code: 'approval_already_decided', detail: 'Approval already expired' }),
    ).toBeNull();
    // The wording may change; the code decides.
    expect(
      alreadySignedText({ code: 'approval_already_decided', detail: 'Already signed by x' }),
    ).toBeNull();
  });

  it('reads the signatures from the service, else from the decisions', () => {
    const decisions = [
      { actor: 'console_alice', decision: 'approve' },
      { actor: 'console_alice', decision: 'approve' },
      { actor: 'chat_7', decision: 'reject' },
      { actor: 'console_bob', decision: 'approve' },
    ];
    expect(signaturesOf({ risk_level: 'critical', decisions })).toEqual({
      risk_level: 'critical',
      signers: 2,
      signers_needed: 2,
      signed_by: ['console_alice', 'console_bob'],
    });
    expect(signaturesOf({ risk_level: 'low', decisions: [] })).toMatchObject({
      signers: 0,
      signers_needed: 1,
    });
    expect(
      signaturesOf({
        risk_level: 'high',
        signers: 1,
        signers_needed: 2,
        signed_by: ['ops-alice'],
        decisions: [],
      }),
    ).toEqual({ risk_level: 'high', signers: 1, signers_needed: 2, signed_by: ['ops-alice'] });
  });
});
