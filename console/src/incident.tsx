import { useEffect } from 'preact/hooks';
import { ApiError, api } from './api';
import type { IncidentDetail } from './api-types';
import { useNow } from './hooks';
import { IncidentActions } from './incident-actions';
import { Outside } from './outside';
import { onFeedEvent } from './sse';
import { age, when } from './time-text';
import { useLoad } from './views-common';

async function loadIncident(id: string) {
  try {
    return await api<IncidentDetail>(`/api/v1/incidents/${encodeURIComponent(id)}`);
  } catch (reason) {
    throw reason instanceof ApiError && reason.status === 404
      ? new Error('No such incident.')
      : reason;
  }
}

/** Who moved the incident and when, or a dash while it has not moved that way. */
function Move({ by, at }: { by: string | null; at: string | null }) {
  if (!by) return <>–</>;
  return (
    <>
      <Outside>{by}</Outside>, {when(at)}
    </>
  );
}

export function IncidentView({ id }: { id: string }) {
  const now = useNow();
  const { data: incident, error, reload } = useLoad(() => loadIncident(id), [id]);

  // A move made elsewhere (another operator, a resolved alert, the timeout) shows here live.
  useEffect(
    () =>
      onFeedEvent((event) => {
        if (event.incident_id === id && event.type.startsWith('incident.')) reload();
      }),
    [id],
  );

  if (!incident)
    return (
      <section>
        <h1>
          Incident <Outside>{id}</Outside>
        </h1>
        {error ? (
          <p class="error" role="alert">
            <Outside>{error}</Outside>
          </p>
        ) : (
          <p class="muted">Loading…</p>
        )}
        <p>
          <a href="#/incidents">Back to the incidents</a>
        </p>
      </section>
    );
  return (
    <div class="detail" data-incident-id={incident.id}>
      <p>
        <a href="#/incidents">← Incidents</a>
      </p>
      <h1>
        <Outside>{incident.alert_name}</Outside>{' '}
        <span class={`badge status-${incident.status}`} data-testid="incident-status">
          <Outside>{incident.status}</Outside>
        </span>
      </h1>
      <section class="panel facts-panel" aria-labelledby="facts-title">
        <h2 id="facts-title" class="visually-hidden">
          Facts
        </h2>
        {incident.message && (
          <p class="pre">
            <Outside>{incident.message}</Outside>
          </p>
        )}
        <dl class="facts">
          <dt>Severity</dt>
          <dd>
            <span class={`badge severity-${incident.severity}`}>
              <Outside>{incident.severity}</Outside>
            </span>
          </dd>
          <dt>Where</dt>
          <dd>
            <Outside>{incident.namespace}</Outside>/<Outside>{incident.workload}</Outside>
          </dd>
          <dt>Alert type</dt>
          <dd>
            <Outside>{incident.alert_type}</Outside>
          </dd>
          <dt>Hits</dt>
          <dd>
            <span class="hit-count">{incident.hit_count}</span>, first{' '}
            {age(incident.first_seen, now)} ago, last {age(incident.last_seen, now)} ago
          </dd>
          <dt>Acknowledged</dt>
          <dd data-testid="incident-acknowledged">
            <Move by={incident.acknowledged_by} at={incident.acknowledged_at} />
          </dd>
          <dt>Resolved</dt>
          <dd data-testid="incident-resolved">
            <Move by={incident.resolved_by} at={incident.resolved_at} />
          </dd>
          <dt>Reopened</dt>
          <dd>{['never', 'once'][incident.reopen_count] ?? `${incident.reopen_count} times`}</dd>
          <dt>Approval</dt>
          <dd>
            {incident.approval_id ? (
              <a href={`#/approvals/${encodeURIComponent(incident.approval_id)}`}>
                <Outside>{incident.approval_id}</Outside>
              </a>
            ) : (
              '–'
            )}
          </dd>
          <dt>Fingerprint</dt>
          <dd class="wrap">
            <code>
              <Outside>{incident.fingerprint}</Outside>
            </code>
          </dd>
        </dl>
      </section>
      <IncidentActions incident={incident} onMoved={reload} />
      <section aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        <ol class="timeline" data-testid="incident-timeline">
          {incident.timeline.map((entry) => (
            <li key={`${entry.at}-${entry.event}`}>
              <time dateTime={entry.at}>{when(entry.at)}</time>{' '}
              <strong>
                <Outside>{entry.event}</Outside>
              </strong>{' '}
              by <Outside>{entry.actor}</Outside>
            </li>
          ))}
        </ol>
      </section>
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">Latest alerts</h2>
        {incident.recent_alerts.length === 0 ? (
          <p class="muted">No alert recorded.</p>
        ) : (
          <ol class="timeline">
            {incident.recent_alerts.map((alert) => (
              <li key={alert.alert_id}>
                <time dateTime={alert.received_at}>{when(alert.received_at)}</time>{' '}
                <code>
                  <Outside>{alert.alert_id}</Outside>
                </code>{' '}
                from <Outside>{alert.origin}</Outside>: <Outside>{alert.outcome}</Outside>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}
