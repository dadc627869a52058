import { useEffect } from 'preact/hooks';
import { api } from './api';
import type { IncidentPage } from './api-types';
import { IncidentCard } from './feed-items';
import { useNow } from './hooks';
import { onFeedEvent } from './sse';
import { Loading, useLoad } from './views-common';

/** CONTRACT, Incident lifecycle: the statuses the list filters by. */
const STATUSES = ['open', 'acknowledged', 'resolved'] as const;

/** The filter lives in the hash (`#/incidents?status=open`) so that a filtered list is a link. */
function showStatus(status: string) {
  location.hash = status ? `#/incidents?status=${encodeURIComponent(status)}` : '#/incidents';
}

export function IncidentsView({ status }: { status: string | null }) {
  const now = useNow();
  const chosen = STATUSES.find((known) => known === status) ?? '';
  const listed = useLoad(
    () => api<IncidentPage>(`/api/v1/incidents?limit=50${chosen ? `&status=${chosen}` : ''}`),
    [chosen],
  );

  // useLoad reads again at most once a second, however many events a storm brings.
  useEffect(
    () =>
      onFeedEvent((event) => {
        if (event.type.startsWith('incident.')) listed.reload();
      }),
    [],
  );

  return (
    <section aria-labelledby="incidents-title">
      <h1 id="incidents-title">Incidents</h1>
      <form class="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="incident-status">Status</label>
          <select
            id="incident-status"
            value={chosen}
            onChange={(event) => showStatus(event.currentTarget.value)}
          >
            <option value="">All</option>
            {STATUSES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
      </form>
      <p class="muted">
        By urgency, by search or over a time range: <a href="#/">the Now view</a>.
      </p>
      <h2>
        {chosen ? `${chosen[0]?.toUpperCase()}${chosen.slice(1)}` : 'All'}, newest first{' '}
        <span class="count">{listed.data?.items.length ?? ''}</span>
      </h2>
      {!listed.data ? (
        <Loading error={listed.error} />
      ) : listed.data.items.length === 0 ? (
        <p class="muted">No {chosen || ''} incidents.</p>
      ) : (
        <ul class="cards grid" aria-live="polite">
          {listed.data.items.map((incident) => (
            <IncidentCard key={incident.id} incident={incident} now={now} />
          ))}
        </ul>
      )}
    </section>
  );
}
