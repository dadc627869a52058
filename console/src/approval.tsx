import { useEffect } from 'preact/hooks';
import { ApiError, api } from './api';
import type { ApprovalDetail, ChainVerdict, OperationLogPage } from './api-types';
import { Decide } from './approval-decide';
import { JsonText, Outside } from './outside';
import { onFeedEvent } from './sse';
import { when } from './time-text';
import { useLoad } from './views-common';

async function loadApproval(id: string) {
  const path = encodeURIComponent(id);
  try {
    const [approval, operations, verdict] = await Promise.all([
      api<ApprovalDetail>(`/api/v1/approvals/${path}`),
      api<OperationLogPage>(`/api/v1/operation-log?approval_id=${path}&limit=100`),
      api<ChainVerdict>('/api/v1/operation-log/verify').catch(() => null),
    ]);
    return { approval, operations: operations.items, verdict };
  } catch (reason) {
    throw reason instanceof ApiError && reason.status === 404
      ? new Error('No such approval.')
      : reason;
  }
}

export function ApprovalView({ id }: { id: string }) {
  const { data: loaded, error, reload } = useLoad(() => loadApproval(id), [id]);

  useEffect(
    () =>
      onFeedEvent((event) => {
        if (event.approval_id === id) reload();
      }),
    [id],
  );

  if (error)
    return (
      <section>
        <h1>
          Approval <Outside>{id}</Outside>
        </h1>
        <p class="error" role="alert">
          <Outside>{error}</Outside>
        </p>
        <p>
          <a href="#/">Back to the feed</a>
        </p>
      </section>
    );
  if (!loaded)
    return (
      <section>
        <h1>
          Approval <Outside>{id}</Outside>
        </h1>
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
        Approval{' '}
        <code>
          <Outside>{approval.id}</Outside>
        </code>{' '}
        <span class={`badge status-${approval.status}`} data-testid="approval-status">
          <Outside>{approval.status}</Outside>
        </span>
      </h1>
      <section class="panel" aria-labelledby="card-title">
        <h2 id="card-title">
          <Outside>{approval.action}</Outside>
        </h2>
        {approval.description && (
          <p class="pre">
            <Outside>{approval.description}</Outside>
          </p>
        )}
        <dl class="facts">
          <dt>Risk</dt>
          <dd>
            <Outside>{approval.risk_level}</Outside>
          </dd>
          <dt>Requested by</dt>
          <dd>
            <Outside>{approval.requested_by}</Outside>
          </dd>
          <dt>Incident</dt>
          <dd>
            <Outside>{approval.incident_id ?? '–'}</Outside>
          </dd>
          <dt>Created</dt>
          <dd>{when(approval.created_at)}</dd>
          <dt>Updated</dt>
          <dd>{when(approval.updated_at)}</dd>
        </dl>
        {approval.dry_run_checks.length > 0 && (
          <>
            <h3>Dry-run checks</h3>
            <ul>
              {approval.dry_run_checks.map((check) => (
                <li key={check}>
                  <Outside>{check}</Outside>
                </li>
              ))}
            </ul>
          </>
        )}
        {Object.keys(approval.blast_radius).length > 0 && (
          <details>
            <summary>Blast radius</summary>
            <pre>
              <JsonText text={JSON.stringify(approval.blast_radius, null, 2)} />
            </pre>
          </details>
        )}
      </section>
      <Decide approval={approval} onDecided={reload} />
      <section aria-labelledby="decisions-title">
        <h2 id="decisions-title">Decisions</h2>
        {approval.decisions.length ? (
          <ol class="timeline">
            {approval.decisions.map((decision) => (
              <li key={`${decision.created_at}-${decision.actor}-${decision.to_status}`}>
                <time dateTime={decision.created_at}>{when(decision.created_at)}</time>{' '}
                <strong>
                  <Outside>{decision.actor}</Outside>
                </strong>{' '}
                <Outside>{decision.decision}</Outside> via <Outside>{decision.channel}</Outside> (
                <Outside>{decision.from_status}</Outside> → <Outside>{decision.to_status}</Outside>)
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
            {verdict.intact ? (
              `Hash chain intact (${verdict.entries} entries checked).`
            ) : (
              <>
                Hash chain broken at <Outside>{verdict.first_broken_id}</Outside>:{' '}
                <Outside>{verdict.reason}</Outside>
              </>
            )}
          </p>
        )}
        {operations.length ? (
          <ol class="timeline">
            {operations.map((entry) => (
              <li key={entry.id}>
                <time dateTime={entry.created_at}>{when(entry.created_at)}</time>{' '}
                <strong>
                  <Outside>{entry.type}</Outside>
                </strong>{' '}
                by <Outside>{entry.actor}</Outside>: <Outside>{entry.action_detail}</Outside>{' '}
                {entry.success ? (
                  <span class="badge status-approved">ok</span>
                ) : (
                  <span class="badge status-rejected">failed</span>
                )}
                {entry.error_message && (
                  <span class="error">
                    {' '}
                    <Outside>{entry.error_message}</Outside>
                  </span>
                )}
                <div class="hash">
                  <code>
                    <Outside>{entry.hash.slice(0, 16)}</Outside>
                  </code>{' '}
                  ←{' '}
                  <code>
                    <Outside>{entry.prev_hash.slice(0, 16)}</Outside>
                  </code>
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
