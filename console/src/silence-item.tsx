import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import type { Silence } from './api-types';
import { RecordLink } from './links';
import { Outside, OutsideText } from './outside';
import { matcherText } from './silence-text';
import { age, timeLeft, when } from './time-text';

/** One silence: what it matches, when, who and why, what it muted, and a way to end it. */
export function SilenceItem({
  silence,
  now,
  onExpired,
  highlighted = false,
}: {
  silence: Silence;
  now: number;
  onExpired: () => void;
  /** Reached from a link to this silence (`#/silences?silence=<id>`): shown and marked. */
  highlighted?: boolean;
}) {
  const item = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) item.current?.scrollIntoView({ block: 'center' });
  }, [highlighted]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const state = silence.status.state;

  const expire = async () => {
    setBusy(true);
    setError(null);
    try {
      await api(`/api/v1/alertmanager/api/v2/silence/${encodeURIComponent(silence.id)}`, {
        method: 'DELETE',
      });
      onExpired();
    } catch (reason) {
      setError(reason instanceof Error ? reason.message : String(reason));
    } finally {
      setBusy(false);
    }
  };

  return (
    <li
      ref={item}
      class={highlighted ? 'card highlighted' : 'card'}
      data-silence-id={silence.id}
      aria-current={highlighted ? 'true' : undefined}
    >
      <div class="card-head">
        <span class={`badge state-${state}`} data-testid="silence-state">
          <Outside>{state}</Outside>
        </span>
        <span class="small">
          <RecordLink kind="silence" id={silence.id} />
        </span>
        <span class="hits" data-testid="silence-muted">
          muted <span class="hit-count">{silence.silenced_alerts}</span>
          {silence.silenced_alerts === 1 ? ' alert' : ' alerts'}
        </span>
      </div>
      <ul class="matchers" aria-label="Matchers">
        {silence.matchers.map((matcher) => (
          <li key={`${matcher.name}-${matcher.value}-${matcher.isRegex}-${matcher.isEqual}`}>
            <code>
              <OutsideText pieces={matcherText(matcher)} />
            </code>
          </li>
        ))}
      </ul>
      <p class="meta">
        {state === 'pending'
          ? `starts ${when(silence.startsAt)}`
          : `from ${when(silence.startsAt)}`}
        {' · '}
        {state === 'expired'
          ? `ended ${age(silence.endsAt, now)} ago`
          : `ends ${when(silence.endsAt)} (${timeLeft(silence.endsAt, now)})`}
      </p>
      <p class="meta">
        by <Outside>{silence.createdBy}</Outside>: <Outside>{silence.comment}</Outside>
      </p>
      {silence.recent_silenced.length > 0 && (
        <details>
          <summary>Latest muted alerts</summary>
          <ol class="timeline">
            {silence.recent_silenced.map((muted) => (
              <li key={muted.alert_id}>
                <time dateTime={muted.at} title={when(muted.at)}>
                  {age(muted.at, now)} ago
                </time>{' '}
                <code>
                  <Outside>{muted.alert_id}</Outside>
                </code>{' '}
                fingerprint{' '}
                <code>
                  <Outside>{muted.fingerprint.slice(0, 12)}</Outside>
                </code>
              </li>
            ))}
          </ol>
        </details>
      )}
      {state !== 'expired' && (
        <div class="actions">
          <button type="button" class="danger" disabled={busy} onClick={() => void expire()}>
            Expire
          </button>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          <Outside>{error}</Outside>
        </p>
      )}
    </li>
  );
}
