import type { FeedApproval, Incident } from './api-types';
import { describeApproval, describeIncident } from './feed-text';
import { Outside, OutsideText } from './outside';
import { isolate } from './outside-text';

export function IncidentCard({ incident, now }: { incident: Incident; now: number }) {
  return (
    <li class="card" data-incident-id={incident.id}>
      <div class="card-head">
        <span class={`badge severity-${incident.severity}`}>
          <Outside>{incident.severity}</Outside>
        </span>
        <span class={`badge status-${incident.status}`}>
          <Outside>{incident.status}</Outside>
        </span>
        <span class="hits" title="alerts merged into this incident">
          <span class="hit-count">{incident.hit_count}</span>
          {incident.hit_count === 1 ? ' hit' : ' hits'}
        </span>
      </div>
      <p class="card-title">
        <a href={`#/incidents/${encodeURIComponent(incident.id)}`}>
          <Outside>{incident.alert_name}</Outside>
        </a>
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
          <a href={`#/approvals/${encodeURIComponent(incident.approval_id)}`}>
            Approval <Outside>{incident.approval_id}</Outside>
          </a>
        )}
        <a href={`#/analysis?incident=${encodeURIComponent(incident.id)}`}>Analyze</a>
      </p>
    </li>
  );
}

export function ApprovalCard({ approval, now }: { approval: FeedApproval; now: number }) {
  return (
    <li class="card" data-approval-id={approval.id}>
      <div class="card-head">
        <a href={`#/approvals/${encodeURIComponent(approval.id)}`}>
          <Outside>{approval.id}</Outside>
        </a>
        <span class={`badge status-${approval.status}`}>
          <Outside>{approval.status}</Outside>
        </span>
      </div>
      <p class="card-title">
        <Outside>{approval.action}</Outside>
      </p>
      <p class="meta">
        <OutsideText pieces={describeApproval(approval, now)} />
      </p>
    </li>
  );
}

/** A filter; options are outside text, isolated as strings since an option holds no element. */
export function Select(props: {
  label: string;
  id: string;
  value: string;
  options: string[];
  set: (value: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={props.value}
        onChange={(event) => props.set(event.currentTarget.value)}
      >
        <option value="">All</option>
        {props.options.map((option) => (
          <option key={option} value={option}>
            {isolate(option)}
          </option>
        ))}
      </select>
    </div>
  );
}
