import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../ports/clock.js';
import type { Db } from '../../ports/store.js';
import { type JobRow, renewLease } from './sql-job-rows.js';

export interface JobLease {
  /** Stops renewing; the lease then runs out unless the run is recorded first. */
  stop(): void;
  /** Stops renewing and gives the current lease, or undefined once it was lost. */
  release(): Promise<number | undefined>;
}

/**
 * Renews a claimed job's lease every third of its length while the handler runs, so a
 * long job is not mistaken for one whose process died.
 */
export function holdLease(
  db: Db,
  clock: Clock,
  log: FastifyBaseLogger,
  leaseMs: number,
  job: JobRow,
): JobLease {
  let until: number | undefined = job.locked_until ?? undefined;
  let renewal = Promise.resolve();
  const renew = async () => {
    if (until === undefined) return;
    const now = clock.now();
    try {
      if (await renewLease(db, job.id, until, now + leaseMs, now)) until = now + leaseMs;
      else {
        until = undefined;
        log.warn({ job: job.id }, 'jobs: lease lost while running');
      }
    } catch (error) {
      log.warn({ err: error, job: job.id }, 'jobs: lease renewal failed');
    }
  };
  const timer = setInterval(() => {
    renewal = renewal.then(renew);
  }, leaseMs / 3);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    async release() {
      clearInterval(timer);
      await renewal;
      return until;
    },
  };
}
