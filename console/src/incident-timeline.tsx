import { RecordLink } from './links';
import { Outside } from './outside';
import type { IncidentPageData, MatchingSilence } from './page-types';
import { when } from './time-text';

type Entry =
  | { kind: 'move'; at: string; event: string; actor: string }
  | { kind: 'silence'; at: string; silence: MatchingSilence };

/**
 * The incident's moves (opened, acknowledged, resolved, reopened) and the silences that match
 * it, in time order: a silence reads "silenced by <who> until <when>".
 */
export function IncidentTimeline({ incident }: { incident: IncidentPageData }) {
  const entries: Entry[] = [
    ...incident.timeline.map((move) => ({ kind: 'move' as const, ...move })),
    ...(incident.silences ?? []).map((silence) => ({
      kind: 'silence' as const,
      at: silence.starts_at,
      silence,
    })),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <section class="panel" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ol class="timeline" data-testid="incident-timeline">
        {entries.map((entry) =>
          entry.kind === 'move' ? (
            <li key={`${entry.at}-${entry.event}`}>
              <time dateTime={entry.at}>{when(entry.at)}</time>{' '}
              <strong>
                <Outside>{entry.event}</Outside>
              </strong>{' '}
              by <Outside>{entry.actor}</Outside>
            </li>
          ) : (
            <li key={`silence-${entry.silence.id}`} data-testid="incident-silence">
              <time dateTime={entry.at}>{when(entry.at)}</time> <strong>silenced</strong> by{' '}
              <Outside>{entry.silence.created_by}</Outside> until {when(entry.silence.ends_at)}
              {entry.silence.state === 'pending' ? ' (not yet started)' : ''}:{' '}
              <Outside>{entry.silence.comment}</Outside> ·{' '}
              <RecordLink kind="silence" id={entry.silence.id} />
            </li>
          ),
        )}
      </ol>
    </section>
  );
}
