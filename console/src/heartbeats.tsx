import { useEffect } from 'preact/hooks';
import { api } from './api';
import type { HeartbeatPage } from './api-types';
import { useNow } from './hooks';
import { RecordLink } from './links';
import { Outside } from './outside';
import { onFeedEvent } from './sse';
import { age, duration, timeLeft, when } from './time-text';
import { Loading, useLoad } from './views-common';

/**
 * A heartbeat expires with no event of its own (only the incident it opens has one), so the
 * list is read again every few seconds; the time left ticks every second between reads.
 */
const REFRESH_MS = 5000;

export function HeartbeatsView() {
  const now = useNow(1000);
  const listed = useLoad(() => api<HeartbeatPage>('/api/v1/heartbeats?limit=200'), []);

  useEffect(() => {
    const timer = setInterval(() => listed.reload(), REFRESH_MS);
    const off = onFeedEvent((event) => {
      if (event.type === 'incident.created' || event.type === 'incident.resolved') {
        listed.reload();
      }
    });
    return () => {
      clearInterval(timer);
      off();
    };
  }, []);

  const items = listed.data?.items ?? [];
  const expired = items.filter((beat) => beat.status === 'expired').length;
  return (
    <section aria-labelledby="heartbeats-title">
      <h1 id="heartbeats-title">Heartbeats</h1>
      <p class="muted">
        Jobs and watchdogs that beat (<code>POST /api/v1/heartbeats/&lt;name&gt;</code>); one that
        misses its timeout opens a HeartbeatMissing incident, and its next beat resolves it.
      </p>
      <div class="stats">
        <div class="stat">
          <p class="stat-label">Watched</p>
          <p class="stat-value">{listed.data ? items.length : '–'}</p>
        </div>
        <div class="stat">
          <p class="stat-label">Expired</p>
          <p class={`stat-value${expired ? ' error' : ''}`} data-testid="heartbeats-expired">
            {listed.data ? expired : '–'}
          </p>
        </div>
      </div>
      {!listed.data ? (
        <Loading error={listed.error} />
      ) : items.length === 0 ? (
        <p class="muted">No heartbeat yet.</p>
      ) : (
        <>
          <h2>By name</h2>
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Heartbeats by name</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last beat</th>
                  <th scope="col">Time left</th>
                  <th scope="col">Timeout</th>
                  <th scope="col">Incident</th>
                </tr>
              </thead>
              <tbody>
                {items.map((beat) => (
                  <tr key={beat.name} data-heartbeat={beat.name}>
                    <td>
                      <strong>
                        <Outside>{beat.name}</Outside>
                      </strong>
                    </td>
                    <td>
                      <span class={`badge beat-${beat.status}`} data-testid="heartbeat-status">
                        <Outside>{beat.status}</Outside>
                      </span>
                    </td>
                    <td>
                      <span class="cell-label">last beat </span>
                      <time dateTime={beat.last_beat_at} title={when(beat.last_beat_at)}>
                        {age(beat.last_beat_at, now)} ago
                      </time>
                    </td>
                    <td data-testid="heartbeat-left">
                      <time dateTime={beat.expires_at} title={when(beat.expires_at)}>
                        {timeLeft(beat.expires_at, now)}
                      </time>
                    </td>
                    <td>
                      <span class="cell-label">timeout </span>
                      {duration(beat.timeout_seconds)}
                    </td>
                    <td>
                      <span class="cell-label">incident </span>
                      {beat.incident_id ? (
                        <RecordLink kind="incident" id={beat.incident_id} />
                      ) : (
                        <span class="muted">–</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
