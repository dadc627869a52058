import { useState } from 'preact/hooks';
import { api, operator } from './api';
import type { ApprovalDetail, DecisionAnswer } from './api-types';
import { useWatched } from './hooks';
import { forgetRefusedOperator, OperatorSignIn, operatorHeaders } from './operator-sign-in';
import { Outside } from './outside';

/** Approve or reject as a named operator (OPERATOR_KEYS), recorded as `console_<id>`. */
export function Decide({
  approval,
  onDecided,
}: {
  approval: ApprovalDetail;
  onDecided: () => void;
}) {
  const signedIn = useWatched(operator);
  const [busy, setBusy] = useState(false);
  // `text` is the service's answer (outside text); `status` the state it reports.
  const [message, setMessage] = useState<{ ok: boolean; text: string; status?: string } | null>(
    null,
  );

  const decide = async (decision: 'approve' | 'reject') => {
    if (!signedIn) return;
    setBusy(true);
    setMessage(null);
    try {
      const answer = await api<DecisionAnswer>(
        `/api/v1/approvals/${encodeURIComponent(approval.id)}/decision`,
        {
          method: 'POST',
          body: { decision },
          headers: operatorHeaders(signedIn),
        },
      );
      setMessage({ ok: true, text: answer.message, status: answer.status });
      onDecided();
    } catch (reason) {
      forgetRefusedOperator(reason);
      setMessage({ ok: false, text: reason instanceof Error ? reason.message : String(reason) });
    } finally {
      setBusy(false);
    }
  };

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
