import { useEffect, useState } from 'preact/hooks';
import {
  ApiError,
  type Approval,
  api,
  type FeedEvent,
  type Incident,
  type Page,
  signInCount,
} from './api';
import { age, useNow, useWatched } from './hooks';
import { onFeedEvent } from './sse';

interface Activity {
  key: string;
  at: string;
  text: string;
}

const SEVERITY_ORDER = ['critical', 'high', 'warning', 'medium', 'low', 'info'];

function sortedNewest<T extends { id: string }>(map: Map<string, T>, at: (item: T) => string) {
  return [...map.values()].sort((a, b) => Date.parse(at(b)) - Date.parse(at(a)));
}

function describe(event: FeedEvent): string {
  switch (event.type) {
    case 'signal.handled':
      return `Signal ${event.entry_id}: ${event.outcome}${event.incident_id ? ` → ${event.incident_id}` : ''}`;
    case 'analysis.updated':
      return `Analysis ${event.task_id}: ${event.state} ${event.progress ?? 0}% (${event.agents_completed ?? 0}/${event.total_agents ?? 0} experts)`;
    case 'approval.updated':
      return `Approval ${event.approval_id} ${event.status} by ${event.actor} via ${event.channel}`;
    case 'approval.created':
      return `Approval ${event.approval_id} created${event.incident_id ? ` for ${event.incident_id}` : ''}`;
    case 'incident.created':
      return `Incident ${event.incident_id} (${event.severity}, ${event.namespace})`;
    case 'incident.converged':
      return `Incident ${event.incident_id} hit ${event.hit_count} times`;
    default:
      return event.type;
  }
}

export function FeedView() {
  const signIns = useWatched(signInCount);
  const now = useNow();
  const [incidents, setIncidents] = useState(new Map<string, Incident>());
  const [approvals, setApprovals] = useState(new Map<string, Approval>());
  const [activity, setActivity] = useState<Activity[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [severity, setSeverity] = useState('');
  const [namespace, setNamespace] = useState('');

  const upsertIncident = (incident: Incident) =>
    setIncidents((current) => new Map(current).set(incident.id, incident));
  const upsertApproval = (approval: Approval) =>
    setApprovals((current) => new Map(current).set(approval.id, approval));

  const loadIncident = (id: string) =>
    api<Incident>(`/api/v1/incidents/${encodeURIComponent(id)}`).then(upsertIncident, () => {});
  const loadApproval = (id: string) =>
    api<Approval>(`/api/v1/approvals/${encodeURIComponent(id)}`).then(upsertApproval, () => {});

  useEffect(() => {
    let cancelled = false;
    setError(null);
    Promise.all([
      api<Page<Incident>>('/api/v1/incidents?limit=50'),
      api<Page<Approval>>('/api/v1/approvals?limit=50'),
    ]).then(
      ([incidentPage, approvalPage]) => {
        if (cancelled) return;
        setIncidents((current) => {
          const next = new Map(current);
          for (const item of incidentPage.items) if (!next.has(item.id)) next.set(item.id, item);
          return next;
        });
        setApprovals((current) => {
          const next = new Map(current);
          for (const item of approvalPage.items) if (!next.has(item.id)) next.set(item.id, item);
          return next;
        });
      },
      (reason: unknown) => {
        if (!cancelled && !(reason instanceof ApiError && [401, 403].includes(reason.status)))
          setError(reason instanceof Error ? reason.message : String(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [signIns]);

  useEffect(
    () =>
      onFeedEvent((event) => {
        setActivity((current) =>
          [
            {
              key: `${event.type}-${event.at}-${current.length}`,
              at: event.at,
              text: describe(event),
            },
            ...current,
          ].slice(0, 30),
        );
        if (event.type === 'incident.created' && event.incident_id) {
          void loadIncident(event.incident_id);
          if (event.approval_id) void loadApproval(event.approval_id);
        }
        if (event.type === 'incident.converged' && event.incident_id) {
          const id = event.incident_id;
          setIncidents((current) => {
            const known = current.get(id);
            if (!known) {
              void loadIncident(id);
              return current;
            }
            return new Map(current).set(id, {
              ...known,
              hit_count: Math.max(known.hit_count, event.hit_count ?? known.hit_count),
              last_seen: event.at,
            });
          });
        }
        if (
          (event.type === 'approval.created' || event.type === 'approval.updated') &&
          event.approval_id
        ) {
          void loadApproval(event.approval_id);
        }
      }),
    [],
  );

  const incidentList = sortedNewest(incidents, (item) => item.last_seen);
  const approvalList = sortedNewest(approvals, (item) => item.updated_at);
  const statuses = [
    ...new Set([...incidentList, ...approvalList].map((item) => item.status)),
  ].sort();
  const severities = [...new Set(incidentList.map((item) => item.severity))].sort(
    (a, b) => SEVERITY_ORDER.indexOf(a) - SEVERITY_ORDER.indexOf(b),
  );
  const namespaces = [...new Set(incidentList.map((item) => item.namespace))].sort();

  const shownIncidents = incidentList.filter(
    (item) =>
      (!status || item.status === status) &&
      (!severity || item.severity === severity) &&
      (!namespace || item.namespace === namespace),
  );
  const shownApprovals = approvalList.filter((item) => {
    if (status && item.status !== status) return false;
    if (!severity && !namespace) return true;
    const incident = item.incident_id ? incidents.get(item.incident_id) : undefined;
    return (
      !!incident &&
      (!severity || incident.severity === severity) &&
      (!namespace || incident.namespace === namespace)
    );
  });

  return (
    <div class="feed">
      <h1>Live feed</h1>
      {error && (
        <p class="error" role="alert">
          Could not load: {error}
        </p>
      )}
      <form class="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <Select
          label="Status"
          id="filter-status"
          value={status}
          options={statuses}
          set={setStatus}
        />
        <Select
          label="Severity"
          id="filter-severity"
          value={severity}
          options={severities}
          set={setSeverity}
        />
        <Select
          label="Namespace"
          id="filter-namespace"
          value={namespace}
          options={namespaces}
          set={setNamespace}
        />
      </form>
      <div class="columns">
        <section aria-labelledby="incidents-title">
          <h2 id="incidents-title">
            Incidents <span class="count">{shownIncidents.length}</span>
          </h2>
          {shownIncidents.length === 0 ? (
            <p class="muted">No incidents{incidentList.length ? ' match the filters' : ' yet'}.</p>
          ) : (
            <ul class="cards" aria-live="polite">
              {shownIncidents.map((incident) => (
                <IncidentCard key={incident.id} incident={incident} now={now} />
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="approvals-title">
          <h2 id="approvals-title">
            Approvals <span class="count">{shownApprovals.length}</span>
          </h2>
          {shownApprovals.length === 0 ? (
            <p class="muted">No approvals{approvalList.length ? ' match the filters' : ' yet'}.</p>
          ) : (
            <ul class="cards">
              {shownApprovals.map((approval) => (
                <li key={approval.id} class="card" data-approval-id={approval.id}>
                  <div class="card-head">
                    <a href={`#/approvals/${encodeURIComponent(approval.id)}`}>{approval.id}</a>
                    <span class={`badge status-${approval.status}`}>{approval.status}</span>
                  </div>
                  <p class="card-title">{approval.action}</p>
                  <p class="meta">
                    risk {approval.risk_level}
                    {approval.signers_needed !== undefined &&
                      ` · ${approval.signers ?? 0}/${approval.signers_needed} signers`}
                    {' · '}
                    updated {age(approval.updated_at, now)} ago
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <section aria-labelledby="activity-title">
        <h2 id="activity-title">Activity</h2>
        {activity.length === 0 ? (
          <p class="muted">Events appear here as they happen.</p>
        ) : (
          <ol class="activity">
            {activity.map((item) => (
              <li key={item.key}>
                <time dateTime={item.at}>{age(item.at, now)} ago</time> {item.text}
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}

function IncidentCard({ incident, now }: { incident: Incident; now: number }) {
  return (
    <li class="card" data-incident-id={incident.id}>
      <div class="card-head">
        <span class={`badge severity-${incident.severity}`}>{incident.severity}</span>
        <span class={`badge status-${incident.status}`}>{incident.status}</span>
        <span class="hits" title="alerts merged into this incident">
          <span class="hit-count">{incident.hit_count}</span>
          {incident.hit_count === 1 ? ' hit' : ' hits'}
        </span>
      </div>
      <p class="card-title">{incident.alert_name}</p>
      <p class="meta">
        {incident.namespace}/{incident.workload} · {incident.alert_type} · first{' '}
        {age(incident.first_seen, now)} ago · last {age(incident.last_seen, now)} ago
      </p>
      <details>
        <summary>Why these alerts were grouped</summary>
        <p>
          Fingerprint <code>{incident.fingerprint}</code> = first 32 hex characters of sha256(
          <code>
            {incident.namespace}:{incident.workload}:{incident.alert_type}
          </code>
          ). An alert with the same fingerprint joins this incident while its approval is pending or
          it was first seen less than 5 minutes earlier.
        </p>
      </details>
      <p class="links">
        {incident.approval_id && (
          <a href={`#/approvals/${encodeURIComponent(incident.approval_id)}`}>
            Approval {incident.approval_id}
          </a>
        )}
        <a href={`#/analysis?incident=${encodeURIComponent(incident.id)}`}>Analyze</a>
      </p>
    </li>
  );
}

function Select(props: {
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
            {option}
          </option>
        ))}
      </select>
    </div>
  );
}
