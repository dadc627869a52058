import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import {
  claimOutboxRow,
  deleteCompletedBefore,
  dueOutboxJobIds,
  insertOutboxJob,
  markOutboxCompleted,
  markOutboxGivenUp,
  markOutboxRelayed,
  noteOutboxFailure,
  type OutboxJob,
} from './outbox-records.js';

/**
 * Transactional follow-up. A feature that commits a record and owes it a background job
 * (an incident its card and repair evaluation, an approval its evaluation) writes the job
 * here in the record's own transaction (`addFollowUpJob`), then relays it once committed
 * (`relayFollowUpJob`); the job reports its work done (`completeFollowUpJob`). When the
 * process dies between commit and relay, or the queue refuses the job, the background relay
 * (`startOutboxRelay`) hands it over later; when the queue loses it (Redis restarted without
 * persistence) or it runs out of attempts (a long outage), it is offered again RECHECK_MS
 * after its first relay (then later each time), until it completes or was relayed
 * MAX_OFFERS times, which is logged and kept. It lives beside the features rather than in the jobs adapter because it works the
 * same in front of either queue (the JobQueue port takes no transaction).
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
/** How often the background relay looks for rows left behind. */
const RELAY_EVERY_MS = 1_000;
const RELAY_BATCH = 100;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const KEEP_COMPLETED_MS = 24 * 60 * 60 * 1000;

export type { OutboxJob };

/** Writes `job` in the transaction of the record it follows; relay it after the commit. */
export function addFollowUpJob(tx: Tx, job: OutboxJob, now: number): Promise<void> {
  return insertOutboxJob(tx, job, now);
}

/**
 * Hands one committed job to the queue. Never throws: a job not relayed now stays in the
 * outbox with its error, and the background relay tries again. True when this call relayed it.
 */
export async function relayFollowUpJob(services: Services, jobId: string): Promise<boolean> {
  const { store, jobs, log } = services;
  try {
    const row = await claimOutboxRow(store.db, jobId, Date.now(), Date.now() + LEASE_MS);
    if (!row) return false;
    if (row.attempts >= MAX_OFFERS) {
      await markOutboxGivenUp(store.db, jobId, Date.now());
      log.error(
        { jobId, offers: row.attempts, lastError: row.last_error },
        'outbox: follow-up job never completed; given up (its outbox row keeps the record)',
      );
      return false;
    }
    try {
      await jobs.enqueue(row.job_name, JSON.parse(row.payload) as Record<string, unknown>, {
        jobId: row.job_id,
        attempts: JOB_ATTEMPTS,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await noteOutboxFailure(store.db, jobId, Date.now() + RETRY_MS, message);
      log.warn({ err: error, jobId }, 'outbox: job not enqueued; the relay will retry');
      return false;
    }
    const recheckMs = Math.min(RECHECK_MS * 2 ** row.attempts, MAX_RECHECK_MS);
    await markOutboxRelayed(store.db, jobId, Date.now(), Date.now() + recheckMs);
    return true;
  } catch (error) {
    // The database failed: the row keeps its lease, which runs out, and is relayed then.
    log.error({ err: error, jobId }, 'outbox: relay failed; the relay will retry');
    return false;
  }
}

/**
 * Called by the job when its work is done, as its last step: the row is not offered again.
 * It throws when the database fails, so the job fails and the queue runs it again within
 * seconds (every follow-up job is idempotent); swallowing it would leave the row to wait for
 * its recheck, minutes away.
 */
export async function completeFollowUpJob(services: Services, jobId: string): Promise<void> {
  await markOutboxCompleted(services.store.db, jobId, Date.now());
}

export interface OutboxRelay {
  stop(): Promise<void>;
}

/**
 * Relays rows left behind by a crash or a queue outage, every second, on every replica; the
 * row lease keeps two relayers from enqueueing one row at once. Start after the job queue.
 */
export function startOutboxRelay(services: Services): OutboxRelay {
  const { store, log } = services;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let lastPrune = 0;

  async function relayDue(): Promise<void> {
    try {
      for (const jobId of await dueOutboxJobIds(store.db, Date.now(), RELAY_BATCH)) {
        if (stopped) return;
        await relayFollowUpJob(services, jobId);
      }
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await deleteCompletedBefore(store.db, Date.now() - KEEP_COMPLETED_MS);
      }
    } catch (error) {
      log.error({ err: error }, 'outbox: relay pass failed; retrying on the next one');
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      pass = relayDue().finally(schedule);
    }, RELAY_EVERY_MS);
  }

  pass = relayDue().finally(schedule);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
