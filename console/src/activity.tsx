import { activityLog, activityVersion } from './activity-feed';
import { ActivityLine } from './activity-line';
import type { ActivityEntry } from './activity-log';
import { describeFeedEvent } from './feed-text';
import { useNow, useWatched } from './hooks';
import { age, when } from './time-text';

/** How many lines the Activity page draws: the log holds the hour, a page this many. */
const PAGE_LINES = 200;
/** The Now view's strip: the latest few. */
const STRIP_LINES = 6;

function Lines({ entries, now }: { entries: ActivityEntry[]; now: number }) {
  return (
    <ol class="activity">
      {entries.map((entry) => (
        <li key={entry.key} data-activity={entry.event.type}>
          <time dateTime={entry.at} title={when(entry.at)}>
            {age(entry.at, now)} ago
          </time>{' '}
          <ActivityLine pieces={describeFeedEvent(entry.event, activityLog)} />
        </li>
      ))}
    </ol>
  );
}

/**
 * The service's events of the last hour, newest first: kept while the console is open whatever
 * page is shown (and across a reload of the tab), an analysis as one line per task, an
 * incident's repeats as one line, every record named and linked.
 */
export function ActivityView() {
  useWatched(activityVersion);
  useNow(5_000);
  const now = Date.now();
  const entries = activityLog.entries(now);
  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Activity</h1>
      <p class="muted">
        The last hour of events, newest first; an analysis or an incident's repeats update their own
        line.
      </p>
      {entries.length === 0 ? (
        <p class="muted">Events appear here as they happen.</p>
      ) : (
        <Lines entries={entries.slice(0, PAGE_LINES)} now={now} />
      )}
    </section>
  );
}

/** The latest few events, beside the Now view's incidents. */
export function LatestActivity() {
  useWatched(activityVersion);
  useNow(5_000);
  const now = Date.now();
  const entries = activityLog.entries(now).slice(0, STRIP_LINES);
  return (
    <section class="latest" aria-labelledby="latest-title">
      <h2 id="latest-title">Latest</h2>
      {entries.length === 0 ? (
        <p class="muted">Events appear here as they happen.</p>
      ) : (
        <Lines entries={entries} now={now} />
      )}
      <p>
        <a href="#/activity">All activity of the last hour</a>
      </p>
    </section>
  );
}
