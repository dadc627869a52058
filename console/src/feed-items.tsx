import type { Approval, FeedEvent, Incident } from './api';
import { age } from './hooks';
import { isolate, Outside } from './outside';

/** One line of the activity list; every field of the event is outside text. */
export function ActivityText({ event }: { event: FeedEvent }) {
  switch (event.type) {
    case 'signal.handled':
      return (
        <>
          Signal <Outside>{event.entry_id}</Outside>: <Outside>{event.outcome}</Outside>
          {event.incident_id && (
            <>
              {' → '}
              <Outside>{event.incident_id}</Outside>
            </>
          )}
        </>
      );
    case 'analysis.updated':
      return (
        <>
          Analysis <Outside>{event.task_id}</Outside>: <Outside>{event.state}</Outside>{' '}
          {event.progress ?? 0}% ({event.agents_completed ?? 0}/{event.total_agents ?? 0} experts)
        </>
      );
    case 'approval.updated':
      return (
        <>
          Approval <Outside>{event.approval_id}</Outside> <Outside>{event.status}</Outside> by{' '}
          <Outside>{event.actor}</Outside> via <Outside>{event.channel}</Outside>
        </>
      );
    case 'approval.created':
      return (
        <>
          Approval <Outside>{event.approval_id}</Outside> created
          {event.incident_id && (
            <>
              {' for '}
              <Outside>{event.incident_id}</Outside>
            </>
          )}
        </>
      );
    case 'incident.created':
      return (
        <>
          Incident <Outside>{event.incident_id}</Outside> (<Outside>{event.severity}</Outside>,{' '}
          <Outside>{event.namespace}</Outside>)
        </>
      );
    case 'incident.converged':
      return (
        <>
          Incident <Outside>{event.incident_id}</Outside> hit {event.hit_count} times
        </>
      );
    default:
      return <Outside>{event.type}</Outside>;
  }
}

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
        <Outside>{incident.alert_name}</Outside>
      </p>
      <p class="meta">
        <Outside>{incident.namespace}</Outside>/<Outside>{incident.workload}</Outside> ·{' '}
        <Outside>{incident.alert_type}</Outside> · first {age(incident.first_seen, now)} ago · last{' '}
        {age(incident.last_seen, now)} ago
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

export function ApprovalCard({ approval, now }: { approval: Approval; now: number }) {
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
        risk <Outside>{approval.risk_level}</Outside>
        {approval.signers_needed !== undefined &&
          ` · ${approval.signers ?? 0}/${approval.signers_needed} signers`}
        {' · '}
        updated {age(approval.updated_at, now)} ago
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
