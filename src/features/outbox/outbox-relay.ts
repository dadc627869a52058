import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../../observability/metrics.js';
import { type JobQueue, JobQueueClosedError } from '../../ports/jobs.js';
import type { Store } from '../../ports/store.js';
import {
  claimOutboxRows,
  deleteCompletedBefore,
  dueOutboxJobIds,
  markOutboxGivenUp,
  markOutboxRelayed,
  noteOutboxFailure,
  type OutboxJob,
  reofferRelayed,
} from './outbox-records.js';

/**
 * Transactional follow-up. A feature that commits a record and owes it a background job
 * (an incident its card and repair evaluation, an approval its evaluation) writes the job
 * here in the record's own transaction (follow-up-writer.ts), then relays it once committed
 * (`Outbox.relay`); the job reports its work done (`Outbox.complete`). When the process dies
 * between commit and relay, or the queue refuses the job, the background relay
 * (`Outbox.startRelay`) hands it over later; when the queue loses it (Redis restarted without
 * persistence) or it runs out of attempts (a long outage), it is offered again RECHECK_MS
 * after its first relay (then later each time), until it completes or was relayed
 * MAX_OFFERS times, which is logged, counted (`jobs_given_up_total`, by `outbox`) and kept. It
 * lives beside the features rather than in the jobs adapter because it works the same in front
 * of either queue (the JobQueue port takes no transaction).
 */

/** How long one relayer holds a row; longer than any enqueue takes. */
const LEASE_MS = 30_000;
/** How soon a job the queue refused is offered again. */
const RETRY_MS = 1_000;
/**
 * How long a relayed job has to report completion before it is offered again: 2 minutes
 * after the first relay, doubling after each one up to 30 minutes, so a long backlog in the
 * queue is not offered again and again while it drains.
 */
const RECHECK_MS = 2 * 60 * 1000;
const MAX_RECHECK_MS = 30 * 60 * 1000;
/** Relays of one row without completion before it is given up (about 3 hours). */
const MAX_OFFERS = 10;
/**
 * Tries per offer, with the queue's exponential backoff from 1 s: about two minutes, so a
 * short outage (a full disk, a database restart) is ridden out within one offer.
 */
const JOB_ATTEMPTS = 8;
/**
 * How often the background relay looks for rows left behind: every second while the queue
 * refuses jobs or rows were found due lately, else every 5 s. The writing process relays its
 * rows itself after the commit, so an idle relay finds nothing, and need not look as often.
 */
const RELAY_EVERY_MS = 1_000;
const IDLE_RELAY_EVERY_MS = 5_000;
const BUSY_FOR_MS = 60_000;
const RELAY_BATCH = 500;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const KEEP_COMPLETED_MS = 24 * 60 * 60 * 1000;

export type { OutboxJob };

/**
 * What relaying uses: the outbox rows, the queue they go to, and what it says of them; the
 * ports themselves, since the services name the Outbox this builds.
 */
export interface OutboxDeps {
  store: Store;
  jobs: JobQueue;
  log: FastifyBaseLogger;
  metrics: Metrics;
}

function payloadOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Outbox.relayAll (outbox.ts): `onRefused` hears of each job the queue refused. */
export async function relayJobs(
  services: OutboxDeps,
  jobIds: readonly string[],
  onRefused: () => void,
): Promise<number> {
  const { store, log } = services;
  try {
    const rows = await claimOutboxRows(store.db, jobIds, Date.now(), Date.now() + LEASE_MS);
    const offered: Array<(typeof rows)[number] & { job: Record<string, unknown> }> = [];
    for (const row of rows) {
      const job = row.attempts < MAX_OFFERS ? payloadOf(row.payload) : undefined;
      if (job) {
        offered.push({ ...row, job });
        continue;
      }
      // Offered too often, or a payload no job could run (never written by this service).
      if (!(await markOutboxGivenUp(store.db, row.job_id, Date.now()))) continue;
      services.metrics.jobsGivenUp.inc({ job: row.job_name, by: 'outbox' });
      log.error(
        { jobId: row.job_id, offers: row.attempts, lastError: row.last_error },
        row.attempts < MAX_OFFERS
          ? 'outbox: follow-up job payload is not a JSON object; given up (the row keeps it)'
          : 'outbox: follow-up job never completed; given up (its outbox row keeps the record)',
      );
    }
    const outcomes = await Promise.allSettled(
      offered.map((row) =>
        services.jobs.enqueue(row.job_name, row.job, {
          jobId: row.job_id,
          attempts: JOB_ATTEMPTS,
        }),
      ),
    );
    // Rows relayed as often wait as long for completion: one statement per distinct count.
    const relayedByOffers = new Map<number, string[]>();
    for (const [index, outcome] of outcomes.entries()) {
      const row = offered[index]!;
      if (outcome.status === 'fulfilled') {
        const group = relayedByOffers.get(row.attempts) ?? [];
        group.push(row.job_id);
        relayedByOffers.set(row.attempts, group);
        continue;
      }
      const error = outcome.reason;
      const message = error instanceof Error ? error.message : String(error);
      onRefused();
      await noteOutboxFailure(store.db, row.job_id, Date.now() + RETRY_MS, message);
      // Shutting down with follow-ups still running is normal: the row waits for a relay.
      if (error instanceof JobQueueClosedError)
        log.debug({ jobId: row.job_id }, 'outbox: queue closing; the job waits in the outbox');
      else
        log.warn(
          { err: error, jobId: row.job_id },
          'outbox: job not enqueued; the relay will retry',
        );
    }
    let relayed = 0;
    for (const [offers, ids] of relayedByOffers) {
      const recheckMs = Math.min(RECHECK_MS * 2 ** offers, MAX_RECHECK_MS);
      await markOutboxRelayed(store.db, ids, Date.now(), Date.now() + recheckMs);
      relayed += ids.length;
    }
    return relayed;
  } catch (error) {
    // The database failed: the rows keep their lease, which runs out, and are relayed then.
    log.error(
      { err: error, jobIds: jobIds.slice(0, 10) },
      'outbox: relay failed; the relay will retry',
    );
    return 0;
  }
}

export interface OutboxRelay {
  stop(): Promise<void>;
}

/** Outbox.startRelay (outbox.ts), and its way to take the quick pace at once. */
export function startOutboxRelay(
  services: OutboxDeps,
  relayAll: (jobIds: readonly string[]) => Promise<number>,
  lastRefusal: () => number,
): OutboxRelay & { hurry(): void } {
  const { store, log } = services;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let lastPrune = 0;
  let lastFoundDue = 0;
  let queueReconnected = false;
  services.jobs.onReconnected?.(() => {
    queueReconnected = true;
  });

  async function relayDue(): Promise<void> {
    try {
      if (queueReconnected) {
        await reofferRelayed(store.db, Date.now());
        // Cleared once done: a database still away when Redis came back must not lose it.
        queueReconnected = false;
        log.warn('outbox: the job queue reconnected; unfinished follow-up jobs are offered again');
      }
      // A backlog (a storm while the queue was away) is relayed batch after batch, not one
      // batch a second.
      let due: string[];
      let relayed: number;
      do {
        due = await dueOutboxJobIds(store.db, Date.now(), RELAY_BATCH);
        if (stopped) return;
        if (due.length > 0) lastFoundDue = Date.now();
        relayed = await relayAll(due);
      } while (due.length === RELAY_BATCH && relayed > 0);
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await deleteCompletedBefore(store.db, Date.now() - KEEP_COMPLETED_MS);
      }
    } catch (error) {
      log.error({ err: error }, 'outbox: relay pass failed; retrying on the next one');
    }
  }

  let idling = false;
  function schedule(): void {
    if (stopped) return;
    const busySince = Math.max(lastFoundDue, lastRefusal());
    const busy = queueReconnected || Date.now() - busySince < BUSY_FOR_MS;
    idling = !busy;
    timer = setTimeout(
      () => {
        idling = false;
        pass = relayDue().finally(schedule);
      },
      busy ? RELAY_EVERY_MS : IDLE_RELAY_EVERY_MS,
    );
  }
  const hurry = () => {
    if (!idling || stopped) return;
    clearTimeout(timer);
    idling = false;
    timer = setTimeout(() => {
      pass = relayDue().finally(schedule);
    }, RELAY_EVERY_MS);
  };

  pass = relayDue().finally(schedule);
  return {
    hurry,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
