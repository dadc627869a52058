import type { Incident } from './api-types';
import { describeIncident } from './feed-text';
import { RecordLink } from './links';
import { Outside, OutsideText } from './outside';
import { SeverityBadge } from './severity-badge';

export function IncidentCard({ incident, now }: { incident: Incident; now: number }) {
  return (
    <li class="card" data-incident-id={incident.id}>
      <div class="card-head">
        <SeverityBadge severity={incident.severity} />
        <span class={`badge status-${incident.status}`}>
          <Outside>{incident.status}</Outside>
        </span>
        <span class="hits" title="alerts merged into this incident">
          <span class="hit-count">{incident.hit_count}</span>
          {incident.hit_count === 1 ? ' hit' : ' hits'}
        </span>
      </div>
      <p class="card-title">
        <RecordLink kind="incident" id={incident.id}>
          <Outside>{incident.alert_name}</Outside>
        </RecordLink>
      </p>
      <p class="meta">
        <OutsideText pieces={describeIncident(incident, now)} />
      </p>
      <details>
        <summary>Why these alerts were grouped</summary>
        <p>
          Fingerprint{' '}
          <code>
            <Outside>{incident.fingerprint}</Outside>
          </code>{' '}
          = first 32 hex characters of sha256(
          <code>
            <Outside>{incident.namespace}</Outside>:<Outside>{incident.workload}</Outside>:
            <Outside>{incident.alert_type}</Outside>
          </code>
          ). An alert with the same fingerprint joins this incident while its approval is pending or
          it was first seen less than 5 minutes earlier.
        </p>
      </details>
      <p class="links">
        {incident.approval_id && (
          <span>
            Approval <RecordLink kind="approval" id={incident.approval_id} />
          </span>
        )}
        <a href={`#/analysis?incident=${encodeURIComponent(incident.id)}`}>Analyze</a>
      </p>
    </li>
  );
}
