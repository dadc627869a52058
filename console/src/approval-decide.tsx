import { useState } from 'preact/hooks';
import { ApiError, api } from './api';
import type { DecisionAnswer } from './api-types';
import { ConfirmDialog } from './confirm-dialog';
import { OperatorSignIn, useOperatorMove } from './operator-sign-in';
import { Outside } from './outside';
import type { ApprovalPageData } from './page-types';
import {
  alreadySignedText,
  approveAnswerText,
  needsConfirmation,
  signaturesOf,
} from './signer-text';

type Decision = 'approve' | 'reject';

/**
 * Approve or reject as a named operator (OPERATOR_KEYS), recorded as `console_<id>`. A critical
 * approval asks first, naming the action; a signature that counts without approving yet says
 * who else must sign; a second press by the same operator says that another must.
 */
export function Decide({
  approval,
  onDecided,
}: {
  approval: ApprovalPageData;
  onDecided: () => void;
}) {
  const { signedIn, busy, message, run } = useOperatorMove();
  const [confirming, setConfirming] = useState(false);
  const signatures = signaturesOf(approval);

  const decide = (decision: Decision) =>
    run(async (headers) => {
      const before = signatures.signers;
      try {
        const answer = await api<DecisionAnswer>(
          `/api/v1/approvals/${encodeURIComponent(approval.id)}/decision`,
          { method: 'POST', body: { decision }, headers },
        );
        onDecided();
        if (decision === 'reject') return { ok: true, text: answer.message, status: answer.status };
        return { ok: true, text: approveAnswerText(answer.status, signatures, before) };
      } catch (reason) {
        const explained = reason instanceof ApiError ? alreadySignedText(reason) : null;
        if (explained) return { ok: false, text: explained };
        throw reason;
      }
    });

  const approve = () => {
    if (needsConfirmation(signatures)) setConfirming(true);
    else void decide('approve');
  };

  return (
    <section class="panel" aria-labelledby="decide-title">
      <h2 id="decide-title">Decide</h2>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role="status" data-testid="decision-message">
          <Outside>{message.text}</Outside>
          {message.status && (
            <>
              {' (now '}
              <Outside>{message.status}</Outside>)
            </>
          )}
        </p>
      )}
      <OperatorSignIn purpose="approve or reject" />
      {signedIn &&
        (approval.status === 'pending' ? (
          <div class="actions">
            <button type="button" disabled={busy} onClick={approve}>
              Approve
            </button>
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => void decide('reject')}
            >
              Reject
            </button>
          </div>
        ) : (
          <p class="muted">
            This approval is <Outside>{approval.status}</Outside>: nothing more to decide.
          </p>
        ))}
      <ConfirmDialog
        open={confirming}
        title="Approve a critical action?"
        confirmText="Yes, approve"
        onCancel={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          void decide('approve');
        }}
      >
        Approve the critical action <Outside>{approval.action}</Outside>? It may change production.
        It needs {signatures.signers_needed} signers; yours counts once.
      </ConfirmDialog>
    </section>
  );
}
