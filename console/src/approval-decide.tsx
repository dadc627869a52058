import { useState } from 'preact/hooks';
import { ApiError, api, operator, setOperator } from './api';
import type { ApprovalDetail, DecisionAnswer } from './api-types';
import { useWatched } from './hooks';
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
  const [id, setId] = useState('');
  const [key, setKey] = useState('');
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
          headers: { 'x-operator-id': signedIn.id, 'x-operator-key': signedIn.key },
        },
      );
      setMessage({ ok: true, text: answer.message, status: answer.status });
      onDecided();
    } catch (reason) {
      if (reason instanceof ApiError && reason.detail === 'Invalid operator credentials') {
        setOperator(null);
      }
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
      {signedIn ? (
        <>
          <p>
            Signed in as operator{' '}
            <strong>
              <Outside>{signedIn.id}</Outside>
            </strong>
            ; recorded as{' '}
            <code>
              console_<Outside>{signedIn.id}</Outside>
            </code>
            .{' '}
            <button type="button" class="link" onClick={() => setOperator(null)}>
              Sign out
            </button>
          </p>
          {approval.status === 'pending' ? (
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
          )}
        </>
      ) : (
        <form
          class="stack"
          aria-label="Operator sign-in"
          onSubmit={(event) => {
            event.preventDefault();
            if (id.trim() && key) setOperator({ id: id.trim(), key });
          }}
        >
          <p>Sign in as an operator (from OPERATOR_KEYS) to approve or reject.</p>
          <label for="operator-id">Operator id</label>
          <input
            id="operator-id"
            autocomplete="username"
            required
            value={id}
            onInput={(event) => setId(event.currentTarget.value)}
          />
          <label for="operator-key">Operator key</label>
          <input
            id="operator-key"
            type="password"
            autocomplete="current-password"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
          <button type="submit">Sign in as operator</button>
        </form>
      )}
    </section>
  );
}
