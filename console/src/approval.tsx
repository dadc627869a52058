import { useEffect } from 'preact/hooks';
import { ApiError, api } from './api';
import type { ChainVerdict, OperationLogPage } from './api-types';
import { Decide } from './approval-decide';
import { ApprovalOperationLog } from './approval-oplog';
import { SignerProgress } from './approval-summary';
import { coalesce } from './coalesce';
import { IncidentLink } from './incident-names';
import { RecordLink } from './links';
import { blockedText, DRY_RUN_TEXT, outcomeNotes, statusBadgeClass } from './oplog-text';
import { JsonText, Outside } from './outside';
import type { ApprovalPageData } from './page-types';
import { onFeedEvent } from './sse';
import { when } from './time-text';
import { RecordNotShown, useLoad } from './views-common';

async function loadApproval(id: string) {
  const path = encodeURIComponent(id);
  try {
    const [approval, operations, verdict] = await Promise.all([
      api<ApprovalPageData>(`/api/v1/approvals/${path}`),
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

/**
 * The action, then what it is for: the incident's alert and namespace rather than its id. An
 * execution that was a dry run is not shown as a green `executed`: nothing ran.
 */
function Headline({ approval, dryRun }: { approval: ApprovalPageData; dryRun: boolean }) {
  const { incident } = approval;
  return (
    <h1 class="approval-headline">
      <Outside>{approval.action}</Outside>{' '}
      <span class={statusBadgeClass(approval.status, dryRun)} data-testid="approval-status">
        <Outside>{approval.status}</Outside>
      </span>
      {incident && (
        <span class="where">
          for <Outside>{incident.alert_name}</Outside> in <Outside>{incident.namespace}</Outside> (
          <Outside>{incident.severity}</Outside>, <Outside>{incident.status}</Outside>)
        </span>
      )}
    </h1>
  );
}

export function ApprovalView({ id }: { id: string }) {
  const { data: loaded, error, reload } = useLoad(() => loadApproval(id), [id]);

  // Every change of this approval reads it again, a burst of them once.
  useEffect(() => {
    const approvalReload = coalesce(reload, 250);
    const off = onFeedEvent((event) => {
      if ('approval_id' in event && event.approval_id === id) approvalReload.request();
    });
    return () => {
      off();
      approvalReload.cancel();
    };
  }, [id]);

  if (!loaded)
    return (
      <RecordNotShown
        kind="Approval"
        id={id}
        error={error}
        back={{ href: '#/', label: 'Back to Now' }}
      />
    );
  const { approval, operations, verdict } = loaded;
  const notes = outcomeNotes(approval, operations);
  return (
    <div class="detail" data-approval-id={approval.id}>
      <p>
        <a href="#/">← Now</a>
      </p>
      <Headline approval={approval} dryRun={notes.dryRun} />
      {notes.dryRun && (
        <p class="outcome-note" data-testid="approval-dry-run">
          <span class="badge neutral">{DRY_RUN_TEXT}</span> The dry-run executor recorded the
          playbook&rsquo;s steps without running them.
        </p>
      )}
      {notes.blocked && (
        <p class="outcome-note" data-testid="approval-blocked">
          {blockedText('')}
          <Outside>{notes.blocked}</Outside>
        </p>
      )}
      <section class="panel facts-panel" aria-labelledby="card-title">
        <h2 id="card-title" class="visually-hidden">
          What is asked
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
          <dt>Signers</dt>
          <dd>
            <SignerProgress approval={approval} />
          </dd>
          <dt>Requested by</dt>
          <dd>
            <Outside>{approval.requested_by}</Outside>
          </dd>
          <dt>Incident</dt>
          <dd>
            {approval.incident_id ? (
              <IncidentLink id={approval.incident_id} name={approval.incident ?? undefined} />
            ) : (
              '–'
            )}
          </dd>
          <dt>Approval</dt>
          <dd class="wrap">
            <RecordLink kind="approval" id={approval.id} />
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
      <ApprovalOperationLog operations={operations} verdict={verdict} />
    </div>
  );
}
