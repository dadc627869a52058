import { LatestActivity } from './activity';
import { operator } from './api';
import { useNow, useWatched } from './hooks';
import { IncidentRow } from './incident-row';
import { type SeverityCounts, useSeverityCounts, useWaitingApprovals } from './now-approvals';
import { NowFilterForm } from './now-filters';
import { useNowIncidents } from './now-incidents';
import { filtersFrom, hashOf, isLive, type NowFilters } from './now-query';
import { Outside } from './outside';
import { SEVERITIES } from './severity';
import { SeverityBadge } from './severity-badge';
import { WaitingApprovals } from './waiting-approvals';

/**
 * The console's first page: what is on fire, and what waits for me. The approvals
 * waiting for this operator's decision at the top, the unresolved incidents by urgency under
 * them, the counts per severity in the header; a search and a time range turn it into history.
 */
export function NowView({ query }: { query: URLSearchParams }) {
  const filters = filtersFrom(query);
  // Redrawn at least every 15 s; a redraw for new data takes the time anew (rows may be newer).
  useNow();
  const now = Date.now();
  const signedIn = useWatched(operator);
  const approvals = useWaitingApprovals();
  const counts = useSeverityCounts();
  return (
    <div class="now">
      <div class="now-head">
        <h1>Now</h1>
        <Counts counts={counts} filters={filters} />
      </div>
      <WaitingApprovals signedIn={!!signedIn} {...approvals} />
      <div class="now-body">
        <Incidents filters={filters} now={now} />
        <LatestActivity />
      </div>
    </div>
  );
}

/** The unresolved incidents per severity, P0 first, each a link to the view filtered by it. */
function Counts({ counts, filters }: { counts: SeverityCounts | null; filters: NowFilters }) {
  return (
    <ul class="severity-counts" aria-label="Unresolved incidents by severity" data-testid="counts">
      {SEVERITIES.map((severity) => (
        <li key={severity} data-severity={severity}>
          <a
            href={hashOf({ ...filtersFrom(new URLSearchParams()), severity })}
            aria-current={filters.severity === severity ? 'true' : undefined}
          >
            <SeverityBadge severity={severity} />{' '}
            <span class="severity-count">{counts ? counts.open[severity] : '–'}</span>
          </a>
        </li>
      ))}
      <li class="muted">{counts ? `${counts.total} unresolved` : ''}</li>
    </ul>
  );
}

function Incidents({ filters, now }: { filters: NowFilters; now: number }) {
  const list = useNowIncidents(filters);
  const live = isLive(filters);
  return (
    <section class="now-incidents" aria-labelledby="now-incidents-title">
      <h2 id="now-incidents-title">{headingOf(filters)}</h2>
      <NowFilterForm filters={filters} />
      {list.error && (
        <p class="error" role="alert">
          Could not read the incidents: <Outside>{list.error}</Outside>
        </p>
      )}
      {!live && list.arrived > 0 && (
        <p class="notice" role="status">
          {list.arrived === 1 ? '1 incident opened' : `${list.arrived} incidents opened`} since this
          list was read.{' '}
          <button type="button" class="link" onClick={list.reload}>
            Read it again
          </button>
        </p>
      )}
      {list.rows.length === 0 ? (
        <p class="muted">{list.loading ? 'Loading…' : 'No incidents match.'}</p>
      ) : (
        <ol class="rows" data-testid="now-incidents">
          {list.rows.map((incident) => (
            <IncidentRow key={incident.id} incident={incident} now={now} />
          ))}
        </ol>
      )}
      {list.more && (
        <button type="button" class="secondary show-more" onClick={list.showMore}>
          Show more
        </button>
      )}
    </section>
  );
}

function headingOf(filters: NowFilters): string {
  const which = {
    unresolved: 'Unresolved incidents',
    open: 'Open incidents',
    acknowledged: 'Acknowledged incidents',
    resolved: 'Resolved incidents',
    all: 'All incidents',
  }[filters.show];
  const severity = filters.severity ? ` (${filters.severity})` : '';
  return `${which}${severity}, ${filters.order === 'urgency' ? 'most urgent' : 'newest'} first`;
}
