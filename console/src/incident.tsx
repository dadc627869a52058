import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from './api';
import { ApprovalSummary } from './approval-summary';
import { coalesce } from './coalesce';
import { useNow } from './hooks';
import { IncidentActions } from './incident-actions';
import { IncidentAlerts } from './incident-alerts';
import { IncidentAnalyses } from './incident-analyses';
import { IncidentGrouping } from './incident-grouping';
import { IncidentTimeline } from './incident-timeline';
import { Outside } from './outside';
import { OutsideLink } from './outside-link';
import type { IncidentPageData } from './page-types';
import { onFeedEvent } from './sse';
import { age, when } from './time-text';
import { RecordNotShown, useLoad } from './views-common';

/** The longest a live change waits before the page reads the incident again. */
const RELOAD_MS = 250;

async function loadIncident(id: string) {
  try {
    return await api<IncidentPageData>(`/api/v1/incidents/${encodeURIComponent(id)}`);
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

/** An incident's own page (`#/incidents/<id>`): what fires, where to read up, what to do. */
export function IncidentView({ id }: { id: string }) {
  const now = useNow();
  const { data: incident, error, reload } = useLoad(() => loadIncident(id), [id]);
  const [approvalReloads, setApprovalReloads] = useState(0);

  // A move made elsewhere (another operator, a resolved alert, the timeout, a silence) shows
  // here; a storm of hits on this incident reloads it once a second, not once per event.
  useEffect(() => {
    const incidentReload = coalesce(reload, RELOAD_MS);
    const approvalReload = coalesce(() => setApprovalReloads((count) => count + 1), RELOAD_MS);
    const off = onFeedEvent((event) => {
      if (event.type.startsWith('incident.') && 'incident_id' in event && event.incident_id === id)
        incidentReload.request();
      if (event.type.startsWith('silence.')) incidentReload.request();
      if (event.type === 'approval.updated' && event.approval_id === incident?.approval_id)
        approvalReload.request();
    });
    return () => {
      off();
      incidentReload.cancel();
      approvalReload.cancel();
    };
  }, [id, incident?.approval_id]);

  if (!incident)
    return (
      <RecordNotShown
        kind="Incident"
        id={id}
        error={error}
        back={{ href: '#/incidents', label: 'Back to the incidents' }}
      />
    );
  const hasLinks = incident.runbook_url || incident.generator_url;
  return (
    <div class="detail incident-page" data-incident-id={incident.id}>
      <p>
        <a href="#/incidents">← Incidents</a>
      </p>
      <h1>
        <span class={`badge severity-${incident.severity}`} data-testid="incident-severity">
          <Outside>{incident.severity}</Outside>
        </span>{' '}
        <Outside>{incident.alert_name}</Outside>{' '}
        <span class={`badge status-${incident.status}`} data-testid="incident-status">
          <Outside>{incident.status}</Outside>
        </span>
      </h1>
      <p class="subtitle">
        <Outside>{incident.namespace}</Outside>/<Outside>{incident.workload}</Outside> ·{' '}
        <span class="hit-count">{incident.hit_count}</span>{' '}
        {incident.hit_count === 1 ? 'hit' : 'hits'}, last {age(incident.last_seen, now)} ago
      </p>
      {hasLinks && (
        <p class="links outside-links">
          <OutsideLink url={incident.runbook_url} testId="runbook-link">
            Runbook
          </OutsideLink>
          <OutsideLink url={incident.generator_url} testId="generator-link">
            Source graph
          </OutsideLink>
        </p>
      )}
      <div class="incident-grid">
        <div class="incident-main">
          <section class="panel facts-panel slot-facts" aria-labelledby="facts-title">
            <h2 id="facts-title" class="visually-hidden">
              Facts
            </h2>
            {incident.message && (
              <p class="pre">
                <Outside>{incident.message}</Outside>
              </p>
            )}
            <dl class="facts">
              <dt>Alert type</dt>
              <dd>
                <Outside>{incident.alert_type}</Outside>
              </dd>
              <dt>Hits</dt>
              <dd>
                {incident.hit_count}, first {age(incident.first_seen, now)} ago, last{' '}
                {age(incident.last_seen, now)} ago
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
              <dd>
                {['never', 'once'][incident.reopen_count] ?? `${incident.reopen_count} times`}
              </dd>
              <dt>Fingerprint</dt>
              <dd class="wrap">
                <code>
                  <Outside>{incident.fingerprint}</Outside>
                </code>
              </dd>
            </dl>
          </section>
          <div class="slot-timeline">
            <IncidentTimeline incident={incident} />
          </div>
          <div class="slot-alerts">
            <IncidentAlerts alerts={incident.recent_alerts} />
          </div>
          <div class="slot-grouping">
            <IncidentGrouping grouping={incident.grouping} />
          </div>
        </div>
        <div class="incident-side">
          <div class="slot-act">
            <IncidentActions incident={incident} onMoved={reload} />
          </div>
          <div class="slot-approval">
            {incident.approval_id ? (
              <ApprovalSummary id={incident.approval_id} reloads={approvalReloads} />
            ) : (
              <section class="panel" aria-labelledby="approval-title">
                <h2 id="approval-title">Approval</h2>
                <p class="muted">No approval for this incident.</p>
              </section>
            )}
          </div>
          <div class="slot-analyses">
            <IncidentAnalyses incidentId={incident.id} />
          </div>
        </div>
      </div>
    </div>
  );
}
