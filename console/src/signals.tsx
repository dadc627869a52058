import { useEffect, useMemo } from 'preact/hooks';
import { api, authHeaders, noteAccess } from './api';
import type { FeedEventOf, SignalPage } from './api-types';
import { useCoalescedRedraw, useNow } from './hooks';
import { IncidentLink, useIncidentNames } from './incident-names';
import { Outside } from './outside';
import { onFeedEvent } from './sse';
import { age, duration, when } from './time-text';
import { Loading, useLoad } from './views-common';

/** The signal outcomes kept from the feed: more than the page of 50 the view shows. */
const HANDLED_KEPT = 200;

interface Backlog {
  backlog: number | null;
  oldestAgeSeconds: number | null;
}

/** One gauge's value from the Prometheus text of `/metrics`. */
export function gaugeValue(text: string, name: string): number | null {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      if (Number.isFinite(value)) return value;
    }
  }
  return null;
}

async function loadBacklog(): Promise<Backlog> {
  const response = await fetch('/metrics', { headers: { accept: 'text/plain', ...authHeaders() } });
  if (!response.ok) {
    noteAccess(response.status, undefined);
    throw new Error(`/metrics answered ${response.status}`);
  }
  const text = await response.text();
  return {
    backlog: gaugeValue(text, 'signals_backlog'),
    oldestAgeSeconds: gaugeValue(text, 'signals_oldest_unhandled_age_seconds'),
  };
}

export function SignalsView() {
  const now = useNow(5000);
  const signals = useLoad(() => api<SignalPage>('/api/v1/signals?limit=50'), []);
  const backlog = useLoad(loadBacklog, []);
  // How the latest signals were handled, heard from the feed: bounded to the page's worth,
  // and drawn at most every 250 ms however many arrive (a signal storm is thousands a second).
  const handled = useMemo(() => new Map<string, FeedEventOf<'signal.handled'>>(), []);
  const redraw = useCoalescedRedraw();
  const names = useIncidentNames(
    (signals.data?.items ?? []).map(
      (signal) => handled.get(signal.id)?.incident_id ?? signal.handling.incident_id,
    ),
  );

  useEffect(() => {
    const timer = setInterval(() => backlog.reload(), 10_000);
    const off = onFeedEvent((event) => {
      if (event.type !== 'signal.handled' || !event.entry_id) return;
      handled.delete(event.entry_id);
      handled.set(event.entry_id, event);
      for (const oldest of handled.keys()) {
        if (handled.size <= HANDLED_KEPT) break;
        handled.delete(oldest);
      }
      redraw();
      signals.reload();
      backlog.reload();
    });
    return () => {
      clearInterval(timer);
      off();
    };
  }, []);

  return (
    <section aria-labelledby="signals-title">
      <h1 id="signals-title">Signals</h1>
      <div class="stats">
        <div class="stat">
          <p class="stat-label">Backlog</p>
          <p class="stat-value" data-testid="signals-backlog">
            {backlog.data?.backlog ?? '–'}
          </p>
        </div>
        <div class="stat">
          <p class="stat-label">Oldest unhandled</p>
          <p class="stat-value" data-testid="signals-oldest">
            {duration(backlog.data?.oldestAgeSeconds ?? null)}
          </p>
        </div>
        <div class="stat">
          <p class="stat-label">Stream length</p>
          <p class="stat-value">{signals.data?.length ?? '–'}</p>
        </div>
      </div>
      {backlog.error && <p class="error">{backlog.error}</p>}
      <h2>Latest entries</h2>
      {!signals.data ? (
        <Loading error={signals.error} />
      ) : signals.data.items.length === 0 ? (
        <p class="muted">
          No signal on <Outside>{signals.data.stream}</Outside> yet.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="data">
            <caption class="visually-hidden">
              Latest entries of <Outside>{signals.data.stream}</Outside>, newest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Signal</th>
                <th scope="col">Severity</th>
                <th scope="col">Received</th>
                <th scope="col">Handled</th>
              </tr>
            </thead>
            <tbody>
              {signals.data.items.map((signal) => {
                const live = handled.get(signal.id);
                const outcome = live?.outcome ?? signal.handling.outcome;
                const incident = live?.incident_id ?? signal.handling.incident_id;
                return (
                  <tr key={signal.id} data-signal-id={signal.id}>
                    <td>
                      <strong>
                        <Outside>{signal.alert_name}</Outside>
                      </strong>
                      <div class="muted small">
                        <Outside>{signal.source}</Outside> · <Outside>{signal.namespace}</Outside>/
                        <Outside>{signal.target}</Outside>
                      </div>
                      <div class="small wrap">
                        <Outside>{signal.message}</Outside>
                      </div>
                      <code class="small">
                        <Outside>{signal.id}</Outside>
                      </code>
                    </td>
                    <td>
                      <span class={`badge severity-${signal.severity}`}>
                        <Outside>{signal.severity}</Outside>
                      </span>
                    </td>
                    <td>
                      <time dateTime={signal.received_at} title={when(signal.received_at)}>
                        {age(signal.received_at, now)} ago
                      </time>
                    </td>
                    <td>
                      <span class={`badge outcome-${outcome}`} data-testid="signal-outcome">
                        <Outside>{outcome}</Outside>
                      </span>
                      {incident && (
                        <div class="small">
                          → <IncidentLink id={incident} name={names.get(incident)} />
                        </div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
