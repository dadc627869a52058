import { useState } from 'preact/hooks';
import type { PendingApproval } from './approval-store';
import { RecordLink } from './links';
import { Outside } from './outside';
import { signerProgress } from './signer-text';

/** Shown before "show all": the few most urgent, so the incidents still fit on the screen. */
const FIRST = 3;

/**
 * The approvals that wait for this operator's decision (every pending one when nobody is
 * signed in), pinned at the top of the Now view: what each would do, for which incident, its
 * risk and who signed so far, each linking to its page.
 */
export function WaitingApprovals(props: {
  waiting: PendingApproval[];
  signedIn: boolean;
  error: string | null;
}) {
  const [all, setAll] = useState(false);
  const { waiting } = props;
  const shown = all ? waiting : waiting.slice(0, FIRST);
  return (
    <section class="waiting" aria-labelledby="waiting-title" data-testid="waiting-approvals">
      <h2 id="waiting-title">
        {props.signedIn ? 'Waiting for your decision' : 'Waiting for a decision'}{' '}
        <span class="count">{waiting.length}</span>
      </h2>
      {props.error && (
        <p class="error" role="alert">
          Could not read the approvals: <Outside>{props.error}</Outside>
        </p>
      )}
      {waiting.length === 0 ? (
        <p class="muted">Nothing waits for a decision.</p>
      ) : (
        <ol class="waiting-list">
          {shown.map((approval) => (
            <WaitingApproval key={approval.id} approval={approval} />
          ))}
        </ol>
      )}
      {waiting.length > FIRST && (
        <button type="button" class="link" onClick={() => setAll(!all)}>
          {all ? `Show the first ${FIRST}` : `Show all ${waiting.length}`}
        </button>
      )}
    </section>
  );
}

function WaitingApproval({ approval }: { approval: PendingApproval }) {
  const { incident } = approval;
  return (
    <li class="waiting-item" data-approval-id={approval.id}>
      <span class={`badge risk-${approval.risk_level}`}>
        <Outside>{approval.risk_level}</Outside>
      </span>
      <span class="waiting-headline">
        <RecordLink kind="approval" id={approval.id}>
          <Outside>{approval.action || approval.id}</Outside>
        </RecordLink>
        {approval.incident_id && (
          <>
            {' for '}
            <RecordLink kind="incident" id={approval.incident_id}>
              {incident ? <Outside>{incident.alert_name}</Outside> : undefined}
            </RecordLink>
            {incident && (
              <>
                {' in '}
                <Outside>{incident.namespace}</Outside>
              </>
            )}
          </>
        )}
      </span>
      <span class="signers" data-testid="signer-progress">
        <SignerProgress approval={approval} />
      </span>
    </li>
  );
}

/** "1 of 2 signers: ops-alice", each signer's name isolated as outside text. */
function SignerProgress({ approval }: { approval: PendingApproval }) {
  const { signed_by: signedBy } = approval;
  const signers = Math.max(approval.signers, signedBy.length);
  return (
    <>
      {signerProgress({ ...approval, signers, signed_by: [] })}
      {signedBy.length > 0 && ': '}
      {signedBy.map((who, index) => (
        <span key={who}>
          {index > 0 && ', '}
          <Outside>{who}</Outside>
        </span>
      ))}
    </>
  );
}
