import { api } from './api';
import type { ApprovalDetail, DecisionAnswer } from './api-types';
import { OperatorSignIn, useOperatorMove } from './operator-sign-in';
import { Outside } from './outside';

/** Approve or reject as a named operator (OPERATOR_KEYS), recorded as `console_<id>`. */
export function Decide({
  approval,
  onDecided,
}: {
  approval: ApprovalDetail;
  onDecided: () => void;
}) {
  const { signedIn, busy, message, run } = useOperatorMove();

  const decide = (decision: 'approve' | 'reject') =>
    run(async (headers) => {
      const answer = await api<DecisionAnswer>(
        `/api/v1/approvals/${encodeURIComponent(approval.id)}/decision`,
        { method: 'POST', body: { decision }, headers },
      );
      onDecided();
      return { ok: true, text: answer.message, status: answer.status };
    });

  return (
    <section class="panel" aria-labelledby="decide-title">
      <h2 id="decide-title">Decide</h2>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role="status">
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
            <button type="button" disabled={busy} onClick={() => void decide('approve')}>
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
    </section>
  );
}
