import { useEffect, useState } from 'preact/hooks';
import {
  ApiError,
  type Approval,
  api,
  type ChainVerdict,
  type OperationEntry,
  operator,
  type Page,
  setOperator,
  signInCount,
} from './api';
import { useWatched, when } from './hooks';
import { onFeedEvent } from './sse';

interface Loaded {
  approval: Approval;
  operations: OperationEntry[];
  verdict: ChainVerdict | null;
}

export function ApprovalView({ id }: { id: string }) {
  const signIns = useWatched(signInCount);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let cancelled = false;
    const path = encodeURIComponent(id);
    Promise.all([
      api<Approval>(`/api/v1/approvals/${path}`),
      api<Page<OperationEntry>>(`/api/v1/operation-log?approval_id=${path}&limit=100`),
      api<ChainVerdict>('/api/v1/operation-log/verify').catch(() => null),
    ]).then(
      ([approval, operations, verdict]) => {
        if (cancelled) return;
        setError(null);
        setLoaded({ approval, operations: operations.items, verdict });
      },
      (reason: unknown) => {
        if (cancelled) return;
        if (reason instanceof ApiError && reason.status === 404) setError('No such approval.');
        else if (!(reason instanceof ApiError && [401, 403].includes(reason.status)))
          setError(reason instanceof Error ? reason.message : String(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [id, signIns, reloads]);

  useEffect(
    () =>
      onFeedEvent((event) => {
        if (event.approval_id === id) setReloads((count) => count + 1);
      }),
    [id],
  );

  if (error)
    return (
      <section>
        <h1>Approval {id}</h1>
        <p class="error" role="alert">
          {error}
        </p>
        <p>
          <a href="#/">Back to the feed</a>
        </p>
      </section>
    );
  if (!loaded)
    return (
      <section>
        <h1>Approval {id}</h1>
        <p class="muted">Loading…</p>
      </section>
    );
  const { approval, operations, verdict } = loaded;
  return (
    <div class="detail">
      <p>
        <a href="#/">← Feed</a>
      </p>
      <h1>
        Approval <code>{approval.id}</code>{' '}
        <span class={`badge status-${approval.status}`} data-testid="approval-status">
          {approval.status}
        </span>
      </h1>
      <section class="panel" aria-labelledby="card-title">
        <h2 id="card-title">{approval.action}</h2>
        {approval.description && <p class="pre">{approval.description}</p>}
        <dl class="facts">
          <dt>Risk</dt>
          <dd>{approval.risk_level}</dd>
          <dt>Requested by</dt>
          <dd>{approval.requested_by}</dd>
          <dt>Incident</dt>
          <dd>{approval.incident_id ?? '–'}</dd>
          <dt>Created</dt>
          <dd>{when(approval.created_at)}</dd>
          <dt>Updated</dt>
          <dd>{when(approval.updated_at)}</dd>
        </dl>
        {approval.dry_run_checks && approval.dry_run_checks.length > 0 && (
          <>
            <h3>Dry-run checks</h3>
            <ul>
              {approval.dry_run_checks.map((check) => (
                <li key={check}>{check}</li>
              ))}
            </ul>
          </>
        )}
        {approval.blast_radius && Object.keys(approval.blast_radius).length > 0 && (
          <details>
            <summary>Blast radius</summary>
            <pre>{JSON.stringify(approval.blast_radius, null, 2)}</pre>
          </details>
        )}
      </section>
      <Decide approval={approval} onDecided={() => setReloads((count) => count + 1)} />
      <section aria-labelledby="decisions-title">
        <h2 id="decisions-title">Decisions</h2>
        {approval.decisions?.length ? (
          <ol class="timeline">
            {approval.decisions.map((decision) => (
              <li key={`${decision.created_at}-${decision.actor}-${decision.to_status}`}>
                <time dateTime={decision.created_at}>{when(decision.created_at)}</time>{' '}
                <strong>{decision.actor}</strong> {decision.decision} via {decision.channel} (
                {decision.from_status} → {decision.to_status})
              </li>
            ))}
          </ol>
        ) : (
          <p class="muted">No decision yet.</p>
        )}
      </section>
      <section aria-labelledby="oplog-title">
        <h2 id="oplog-title">Operation log</h2>
        {verdict && (
          <p class={verdict.intact ? 'ok' : 'error'}>
            {verdict.intact
              ? `Hash chain intact (${verdict.entries} entries checked).`
              : `Hash chain broken at ${verdict.first_broken_id}: ${verdict.reason}`}
          </p>
        )}
        {operations.length ? (
          <ol class="timeline">
            {operations.map((entry) => (
              <li key={entry.id}>
                <time dateTime={entry.created_at}>{when(entry.created_at)}</time>{' '}
                <strong>{entry.type}</strong> by {entry.actor}: {entry.action_detail}{' '}
                {entry.success ? (
                  <span class="badge status-approved">ok</span>
                ) : (
                  <span class="badge status-rejected">failed</span>
                )}
                {entry.error_message && <span class="error"> {entry.error_message}</span>}
                <div class="hash">
                  <code>{entry.hash.slice(0, 16)}</code> ←{' '}
                  <code>{entry.prev_hash.slice(0, 16)}</code>
                </div>
              </li>
            ))}
          </ol>
        ) : (
          <p class="muted">No operations logged for this approval.</p>
        )}
      </section>
    </div>
  );
}

function Decide({ approval, onDecided }: { approval: Approval; onDecided: () => void }) {
  const signedIn = useWatched(operator);
  const [id, setId] = useState('');
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const decide = async (decision: 'approve' | 'reject') => {
    if (!signedIn) return;
    setBusy(true);
    setMessage(null);
    try {
      const answer = await api<{ message: string; status: string }>(
        `/api/v1/approvals/${encodeURIComponent(approval.id)}/decision`,
        {
          method: 'POST',
          body: { decision },
          headers: { 'x-operator-id': signedIn.id, 'x-operator-key': signedIn.key },
        },
      );
      setMessage({ ok: true, text: `${answer.message} (now ${answer.status})` });
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
          {message.text}
        </p>
      )}
      {signedIn ? (
        <>
          <p>
            Signed in as operator <strong>{signedIn.id}</strong>; recorded as{' '}
            <code>console_{signedIn.id}</code>.{' '}
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
            <p class="muted">This approval is {approval.status}: nothing more to decide.</p>
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
