import { memo } from 'preact/compat';
import type { IncidentRow as Incident } from './incident-store';
import { RecordLink } from './links';
import { Outside } from './outside';
import { SeverityBadge } from './severity-badge';
import { age, when } from './time-text';

/**
 * One incident as a compact row of the Now view: severity, name (a link to its page), where,
 * hits, age and status on one line at desktop width, so that a dozen fit on a screen.
 */
function Row({ incident, now }: { incident: Incident; now: number }) {
  return (
    <li
      class={`row sev-${incident.severity}`}
      data-incident-id={incident.id}
      data-severity={incident.severity}
    >
      <SeverityBadge severity={incident.severity} />
      <span class="row-name">
        <RecordLink kind="incident" id={incident.id}>
          <Outside>{incident.alert_name}</Outside>
        </RecordLink>
      </span>
      <span class="row-where">
        <Outside>{incident.namespace}</Outside>/<Outside>{incident.workload}</Outside>
      </span>
      <span class="hits">
        <span class="hit-count">{incident.hit_count}</span>
        {incident.hit_count === 1 ? ' hit' : ' hits'}
      </span>
      <time
        class="row-age"
        dateTime={incident.first_seen}
        title={`first seen ${when(incident.first_seen)}, last seen ${when(incident.last_seen)}`}
      >
        {age(incident.first_seen, now)} old
      </time>
      <span class={`badge status-${incident.status}`}>
        <Outside>{incident.status}</Outside>
      </span>
    </li>
  );
}

/**
 * A row is drawn again only when its incident changed (the store replaces a changed one) or
 * its age reads differently: a storm's redraws then touch only the rows that moved.
 */
export const IncidentRow = memo(
  Row,
  (before, after) =>
    before.incident === after.incident &&
    age(before.incident.first_seen, before.now) === age(after.incident.first_seen, after.now),
);
