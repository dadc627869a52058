import { useState } from 'preact/hooks';
import { api, operator } from './api';
import type { SilenceCreated, SilenceMatcher } from './api-types';
import { useWatched } from './hooks';
import { Outside } from './outside';
import { matcherOperator, postableSilence, SILENCE_DURATIONS } from './silence-text';
import { when } from './time-text';

const OPERATORS = ['=', '!=', '=~', '!~'] as const;
const EMPTY: SilenceMatcher = { name: '', value: '', isRegex: false, isEqual: true };
const TWO_HOURS = 2 * 3600;

/**
 * A new silence: matchers (prefilled from an incident's labels when there is one), how long,
 * who and why. The service validates as Alertmanager does and names what is wrong.
 */
export function SilenceForm({
  initial,
  comment: initialComment,
  onCreated,
}: {
  initial: SilenceMatcher[];
  comment: string;
  onCreated: (id: string) => void;
}) {
  const signedIn = useWatched(operator);
  const [matchers, setMatchers] = useState(initial.length ? initial : [EMPTY]);
  const [seconds, setSeconds] = useState(TWO_HOURS);
  const [createdBy, setCreatedBy] = useState(signedIn ? `console_${signedIn.id}` : '');
  const [comment, setComment] = useState(initialComment);
  const [busy, setBusy] = useState(false);
  // `text` is the service's detail or the new silence's id: outside text either way.
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const change = (index: number, patch: Partial<SilenceMatcher>) =>
    setMatchers((current) => current.map((m, i) => (i === index ? { ...m, ...patch } : m)));

  const create = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const body = postableSilence({ matchers, seconds, createdBy, comment, now: Date.now() });
      const answer = await api<SilenceCreated>('/api/v1/alertmanager/api/v2/silences', {
        method: 'POST',
        body,
      });
      setMessage({ ok: true, text: answer.silenceID });
      onCreated(answer.silenceID);
    } catch (reason) {
      setMessage({ ok: false, text: reason instanceof Error ? reason.message : String(reason) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="panel silence-form"
      aria-labelledby="new-silence-title"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h2 id="new-silence-title">New silence</h2>
      <fieldset>
        <legend>Matchers: a firing alert is muted when all of them match its labels</legend>
        <ol class="matcher-rows">
          {matchers.map((matcher, index) => (
            // Rows have no identity of their own but their place; removing one re-keys the rest.
            <li key={index} class="matcher-row">
              <input
                aria-label={`Matcher ${index + 1} label`}
                placeholder="label"
                required
                value={matcher.name}
                onInput={(event) => change(index, { name: event.currentTarget.value })}
              />
              <select
                aria-label={`Matcher ${index + 1} operator`}
                value={matcherOperator(matcher)}
                onChange={(event) => {
                  const chosen = event.currentTarget.value;
                  change(index, {
                    isEqual: !chosen.startsWith('!'),
                    isRegex: chosen.endsWith('~'),
                  });
                }}
              >
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {op}
                  </option>
                ))}
              </select>
              <input
                aria-label={`Matcher ${index + 1} value`}
                placeholder="value"
                value={matcher.value}
                onInput={(event) => change(index, { value: event.currentTarget.value })}
              />
              <button
                type="button"
                class="secondary"
                aria-label={`Remove matcher ${index + 1}`}
                disabled={matchers.length === 1}
                onClick={() => setMatchers((current) => current.filter((_, i) => i !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
        <button
          type="button"
          class="secondary"
          onClick={() => setMatchers((current) => [...current, EMPTY])}
        >
          Add matcher
        </button>
      </fieldset>
      <div class="stack">
        <label for="silence-duration">Duration</label>
        <select
          id="silence-duration"
          value={seconds}
          onChange={(event) => setSeconds(Number(event.currentTarget.value))}
        >
          {SILENCE_DURATIONS.map((choice) => (
            <option key={choice.seconds} value={choice.seconds}>
              {choice.label}
            </option>
          ))}
        </select>
        <p class="muted small">
          From now until about {when(new Date(Date.now() + seconds * 1000).toISOString())}.
        </p>
        <label for="silence-created-by">Created by</label>
        <input
          id="silence-created-by"
          required
          value={createdBy}
          onInput={(event) => setCreatedBy(event.currentTarget.value)}
        />
        <label for="silence-comment">Comment</label>
        <textarea
          id="silence-comment"
          required
          rows={3}
          value={comment}
          onInput={(event) => setComment(event.currentTarget.value)}
        />
        <button type="submit" disabled={busy}>
          Create silence
        </button>
      </div>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role="status">
          {message.ok ? 'Created silence ' : 'Not created: '}
          <Outside>{message.text}</Outside>
        </p>
      )}
    </form>
  );
}
