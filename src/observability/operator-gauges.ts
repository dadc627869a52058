import { countPendingApprovals } from '../features/approvals/approval-records.js';
import { countExpiredHeartbeats } from '../features/heartbeats/heartbeat-records.js';
import { countUnresolvedBySeverity } from '../features/incidents/incident-counts.js';
import { countOutboxBacklog } from '../features/outbox/outbox-records.js';
import type { Services } from '../services.js';
import { withDeadline } from '../support/deadline.js';
import { INCIDENT_SEVERITIES } from './metrics.js';

/**
 * How long a scrape waits for one count. Prometheus gives a scrape 10 s by default; a
 * database that is slow or away must cost it no more than this, and never a 500.
 */
export const GAUGE_READ_DEADLINE_MS = 1_000;

/**
 * CONTRACT, Operator console: the gauges an operator graphs, each one cheap count in the
 * records module of its table, taken when `/metrics` is scraped. A count that fails or is late
 * leaves its gauge at the last value read (a late count still lands when it arrives), and a
 * count still under way is not started again, so a database that hangs holds at most one query
 * per gauge, however often it is scraped.
 */
export function watchOperatorGauges(services: Services): void {
  const { metrics, store, clock, log } = services;
  const counts: Array<[string, () => Promise<void>]> = [
    [
      'incidents_open',
      async () => {
        const bySeverity = await countUnresolvedBySeverity(store.db);
        for (const severity of INCIDENT_SEVERITIES) {
          metrics.incidentsOpen.set({ severity }, bySeverity.get(severity) ?? 0);
        }
      },
    ],
    [
      'approvals_pending',
      async () => metrics.approvalsPending.set(await countPendingApprovals(store.db)),
    ],
    ['outbox_backlog', async () => metrics.outboxBacklog.set(await countOutboxBacklog(store.db))],
    [
      'heartbeats_expired',
      async () =>
        metrics.heartbeatsExpired.set(await countExpiredHeartbeats(store.db, clock.now())),
    ],
  ];
  const readers = counts.map(([name, count]) => ({ name, read: oneAtATime(count) }));

  async function readAll(): Promise<void> {
    const outcomes = await Promise.allSettled(
      readers.map(({ read }) =>
        withDeadline(
          read(),
          GAUGE_READ_DEADLINE_MS,
          () => new Error(`not counted within ${GAUGE_READ_DEADLINE_MS} ms`),
        ),
      ),
    );
    const failed = outcomes.flatMap((outcome, index) =>
      outcome.status === 'rejected' ? [{ gauge: readers[index]!.name, err: outcome.reason }] : [],
    );
    if (failed.length === 0) return;
    log.warn(
      { gauges: failed.map(({ gauge }) => gauge), err: failed[0]!.err },
      '/metrics: operator gauges not counted; they keep their last values',
    );
  }

  // Every gauge's collect() runs at each scrape, side by side: they share one reading.
  let reading: Promise<void> | undefined;
  metrics.readOperatorGauges = () => {
    reading ??= readAll()
      .catch((error: unknown) => log.warn({ err: error }, '/metrics: operator gauges not read'))
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}

/** `work`, or the run of it still under way. */
function oneAtATime(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= work().finally(() => {
      running = undefined;
    });
    return running;
  };
}
