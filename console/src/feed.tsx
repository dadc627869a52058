import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type {
  ApprovalDetail,
  ApprovalPage,
  FeedApproval,
  FeedEvent,
  Incident,
  IncidentDetail,
  IncidentPage,
} from './api-types';
import { ApprovalCard, IncidentCard, Select } from './feed-items';
import { describeFeedEvent } from './feed-text';
import { useNow } from './hooks';
import { Outside, OutsideText } from './outside';
import { onFeedEvent } from './sse';
import { age } from './time-text';
import { useLoad } from './views-common';

interface Activity {
  key: string;
  at: string;
  event: FeedEvent;
}

const SEVERITY_ORDER = ['critical', 'high', 'warning', 'medium', 'low', 'info'];

function sortedNewest<T extends { id: string }>(map: Map<string, T>, at: (item: T) => string) {
  return [...map.values()].sort((a, b) => Date.parse(at(b)) - Date.parse(at(a)));
}

/** Adds the listed items not known yet: an item the live events brought is newer. */
function withListed<T extends { id: string }>(known: Map<string, T>, listed: T[]) {
  const next = new Map(known);
  for (const item of listed) if (!next.has(item.id)) next.set(item.id, item);
  return next;
}

export function FeedView() {
  const now = useNow();
  const [incidents, setIncidents] = useState(new Map<string, Incident>());
  const [approvals, setApprovals] = useState(new Map<string, FeedApproval>());
  const [activity, setActivity] = useState<Activity[]>([]);
  const [status, setStatus] = useState('');
  const [severity, setSeverity] = useState('');
  const [namespace, setNamespace] = useState('');

  const upsertIncident = (incident: Incident) =>
    setIncidents((current) => new Map(current).set(incident.id, incident));
  const upsertApproval = (approval: FeedApproval) =>
    setApprovals((current) => new Map(current).set(approval.id, approval));

  const loadIncident = (id: string) =>
    api<IncidentDetail>(`/api/v1/incidents/${encodeURIComponent(id)}`).then(
      upsertIncident,
      () => {},
    );
  const loadApproval = (id: string) =>
    api<ApprovalDetail>(`/api/v1/approvals/${encodeURIComponent(id)}`).then(
      upsertApproval,
      () => {},
    );

  const listed = useLoad(
    () =>
      Promise.all([
        api<IncidentPage>('/api/v1/incidents?limit=50'),
        api<ApprovalPage>('/api/v1/approvals?limit=50'),
      ]),
    [],
  );
  // The maps are state, not a view of the lists: live events add to them between loads.
  useEffect(() => {
    if (!listed.data) return;
    const [incidentPage, approvalPage] = listed.data;
    setIncidents((current) => withListed(current, incidentPage.items));
    setApprovals((current) => withListed<FeedApproval>(current, approvalPage.items));
  }, [listed.data]);

  useEffect(
    () =>
      onFeedEvent((event) => {
        setActivity((current) =>
          [
            {
              key: `${event.type}-${event.at}-${current.length}`,
              at: event.at,
              event,
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
          ['incident.acknowledged', 'incident.resolved', 'incident.reopened'].includes(
            event.type,
          ) &&
          event.incident_id
        ) {
          void loadIncident(event.incident_id);
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
      {listed.error && (
        <p class="error" role="alert">
          Could not load: <Outside>{listed.error}</Outside>
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
                <ApprovalCard key={approval.id} approval={approval} now={now} />
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
                <time dateTime={item.at}>{age(item.at, now)} ago</time>{' '}
                <OutsideText pieces={describeFeedEvent(item.event)} />
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
