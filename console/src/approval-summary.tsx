import { api } from './api';
import { RecordLink } from './links';
import { statusBadgeClass } from './oplog-text';
import { Outside } from './outside';
import type { ApprovalPageData } from './page-types';
import { signaturesOf, signerProgress } from './signer-text';
import { when } from './time-text';
import { useLoad } from './views-common';

export async function loadApprovalDetail(id: string) {
  return api<ApprovalPageData>(`/api/v1/approvals/${encodeURIComponent(id)}`);
}

/** Signer progress ("1 of 2 signers: console_alice"), read from the detail on every reload. */
export function SignerProgress({ approval }: { approval: ApprovalPageData }) {
  const signatures = signaturesOf(approval);
  return (
    <span class="signer-progress" data-testid="signer-progress">
      <OutsideSigners text={signerProgress(signatures)} count={signatures.signed_by?.length ?? 0} />
    </span>
  );
}

/** The count is the page's words; the names after the colon came from outside. */
function OutsideSigners({ text, count }: { text: string; count: number }) {
  const colon = text.indexOf(': ');
  if (count === 0 || colon < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, colon + 2)}
      <Outside>{text.slice(colon + 2)}</Outside>
    </>
  );
}

/**
 * An incident's approval in brief, on the incident's page: the action, its status, the signers
 * so far and each decision, with a link to the approval's own page. `reloads` is bumped by
 * the page when the feed says the approval changed.
 */
export function ApprovalSummary({ id, reloads }: { id: string; reloads: number }) {
  const { data: approval, error } = useLoad(() => loadApprovalDetail(id), [id, reloads]);
  return (
    <section class="panel" aria-labelledby="approval-title" data-testid="incident-approval">
      <h2 id="approval-title">Approval</h2>
      {!approval ? (
        <p class={error ? 'error' : 'muted'}>{error ? <Outside>{error}</Outside> : 'Loading…'}</p>
      ) : (
        <>
          <p>
            <a href={`#/approvals/${encodeURIComponent(id)}`}>
              <Outside>{approval.action}</Outside>
            </a>{' '}
            <span class={statusBadgeClass(approval.status, approval.dry_run)}>
              <Outside>{approval.status}</Outside>
            </span>{' '}
            risk{' '}
            <strong>
              <Outside>{approval.risk_level}</Outside>
            </strong>
            {approval.dry_run && <span class="badge neutral">dry run: nothing was changed</span>}
          </p>
          <p>
            <SignerProgress approval={approval} />
          </p>
          {approval.decisions.length > 0 && (
            <ol class="timeline">
              {approval.decisions.map((decision) => (
                <li key={`${decision.created_at}-${decision.actor}-${decision.to_status}`}>
                  <time dateTime={decision.created_at}>{when(decision.created_at)}</time>{' '}
                  <Outside>{decision.actor}</Outside> <Outside>{decision.decision}</Outside>
                </li>
              ))}
            </ol>
          )}
          <p class="small">
            Approval <RecordLink kind="approval" id={id} />
          </p>
        </>
      )}
    </section>
  );
}
