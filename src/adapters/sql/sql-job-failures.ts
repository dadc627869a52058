import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import { FAILED, type JobRow, type Outcome, QUEUED } from './sql-job-rows.js';

const MAX_BACKOFF_MS = 15 * 60 * 1000;
/** How soon a job the database itself failed is tried again. */
const OUTAGE_RETRY_MS = 2_000;

export interface FailureContext {
  store: Store;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The first retry's delay; each further one doubles it, up to MAX_BACKOFF_MS. */
  backoffMs: number;
  /** Wakes this process's claims of `name` once `delayMs` have passed. */
  wakeAfter(name: string, delayMs: number): void;
}

/** What a failed run of `job` leads to: a retry after a backoff, or given up. */
export function failureOutcomes({ store, clock, log, backoffMs, wakeAfter }: FailureContext) {
  return (job: JobRow, error: unknown): Outcome => {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
    const context = { job: job.id, name: job.name, attempt: job.attempts_made, err: error };
    // The queue's own database failing (full, unreachable) says nothing about the job: it
    // is tried again soon, without spending a try, so an outage's backlog runs within
    // seconds of the recovery however long the outage lasted.
    if (databaseFailed(store, error)) {
      log.warn(context, 'jobs: the database failed the job; will retry once it is back');
      wakeAfter(job.name, OUTAGE_RETRY_MS);
      const runAfter = clock.now() + OUTAGE_RETRY_MS;
      return { status: QUEUED, runAfter, error: message, refund: true };
    }
    if (job.attempts_made >= job.max_attempts) {
      log.error(context, 'jobs: job failed; no attempts left');
      return { status: FAILED, error: message };
    }
    const delay = Math.min(backoffMs * 2 ** (job.attempts_made - 1), MAX_BACKOFF_MS);
    log.warn(context, 'jobs: job failed; will retry');
    wakeAfter(job.name, delay);
    return { status: QUEUED, runAfter: clock.now() + delay, error: message };
  };
}

/**
 * Whether the database itself failed the work (full or unreachable), here or in what an
 * error was caused by: a job that follows several incidents reports their failures in one
 * error of its own, with the first of them as its cause.
 */
export function databaseFailed(store: Store, error: unknown): boolean {
  let cause = error;
  for (let depth = 0; depth < 5 && cause !== null && cause !== undefined; depth++) {
    if (store.isStorageFull(cause) || store.isUnavailable(cause)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Records a run's end, and tries again every OUTAGE_RETRY_MS while the database fails it
 * and the run's lease would still hold: given up, the job waits out its lease (20 s) before
 * it runs again, long after the database is back.
 */
export async function recordRunEnd(
  store: Store,
  leaseLeftMs: number,
  record: () => Promise<boolean>,
): Promise<boolean> {
  const tries = Math.max(1, Math.floor(leaseLeftMs / OUTAGE_RETRY_MS));
  for (let attempt = 1; ; attempt++) {
    try {
      return await record();
    } catch (error) {
      if (attempt >= tries || !databaseFailed(store, error)) throw error;
      await sleep(OUTAGE_RETRY_MS);
    }
  }
}
