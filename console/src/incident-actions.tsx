import { api } from './api';
import type { IncidentDetail, IncidentMoveAnswer } from './api-types';
import { OperatorSignIn, useOperatorMove } from './operator-sign-in';
import { Outside } from './outside';

type Move = 'acknowledge' | 'resolve';

/**
 * Acknowledge ("I'm on it") or resolve an incident as a named operator, recorded as
 * `console_<id>` (CONTRACT, Incident lifecycle). A move another operator made first answers
 * 409, shown as the service says it.
 */
export function IncidentActions({
  incident,
  onMoved,
}: {
  incident: IncidentDetail;
  onMoved: (incident: IncidentMoveAnswer) => void;
}) {
  const { signedIn, busy, message, run } = useOperatorMove();

  const move = (action: Move) =>
    run(async (headers) => {
      const answer = await api<IncidentMoveAnswer>(
        `/api/v1/incidents/${encodeURIComponent(incident.id)}/${action}`,
        { method: 'POST', headers },
      );
      onMoved(answer);
      return { ok: true, text: answer.status };
    });

  return (
    <section class="panel" aria-labelledby="act-title">
      <h2 id="act-title">Act</h2>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role="status">
          {message.ok ? 'Done: now ' : ''}
          <Outside>{message.text}</Outside>
        </p>
      )}
      <OperatorSignIn purpose="acknowledge or resolve" />
      {signedIn &&
        (incident.status === 'resolved' ? (
          <p class="muted">This incident is resolved: a new alert like it reopens it.</p>
        ) : (
          <div class="actions">
            {incident.status === 'open' && (
              <button type="button" disabled={busy} onClick={() => void move('acknowledge')}>
                Acknowledge
              </button>
            )}
            <button type="button" disabled={busy} onClick={() => void move('resolve')}>
              Resolve
            </button>
          </div>
        ))}
      <p class="links">
        <a class="button-link" href={`#/silences?incident=${encodeURIComponent(incident.id)}`}>
          Silence alerts like this
        </a>
      </p>
    </section>
  );
}
