import type { ChainVerdict, OperationEntry } from './api-types';
import { entryVerdict } from './oplog-text';
import { Outside } from './outside';
import { when } from './time-text';

const TONE_CLASS = {
  ok: 'badge status-approved',
  failed: 'badge status-rejected',
  neutral: 'badge neutral',
} as const;

/** The approval's operation-log entries with the chain's verdict; dry runs and blocks neutral. */
export function ApprovalOperationLog({
  operations,
  verdict,
}: {
  operations: OperationEntry[];
  verdict: ChainVerdict | null;
}) {
  return (
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
          {operations.map((entry) => {
            const verdictOf = entryVerdict(entry);
            return (
              <li key={entry.id} data-operation={entry.type}>
                <time dateTime={entry.created_at}>{when(entry.created_at)}</time>{' '}
                <strong>
                  <Outside>{entry.type}</Outside>
                </strong>{' '}
                by <Outside>{entry.actor}</Outside>: <Outside>{entry.action_detail}</Outside>{' '}
                <span class={TONE_CLASS[verdictOf.tone]} data-testid="operation-verdict">
                  {verdictOf.text}
                </span>
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
            );
          })}
        </ol>
      ) : (
        <p class="muted">No operations logged for this approval.</p>
      )}
    </section>
  );
}
