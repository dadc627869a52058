import type { JobQueue } from '../../ports/jobs.js';
import type { Tx } from '../../ports/store.js';
import type { Outbox } from './outbox.js';
import { insertOutboxJobs, type OutboxJob } from './outbox-records.js';

/**
 * How a feature commits the jobs its records owe, chosen once per service by its queue. In
 * front of Redis, an outbox row in the records' transaction, relayed once committed
 * (outbox-relay.ts). On the SQL queue the job itself is written in that transaction: it
 * commits with the records, and nothing needs relaying; "relay" only wakes the queue. That
 * saves a storm a row, three statements and two commits per batch, and keeps the guarantee:
 * no commit without its job, no job without its commit.
 */
export interface FollowUpWriter {
  /** In the transaction of the records the jobs follow. */
  add(tx: Tx, jobs: readonly OutboxJob[], now: number): Promise<void>;
  /** Once committed: the queue runs them now. Never throws (the relay or the poll retries). */
  relay(jobs: readonly Pick<OutboxJob, 'jobId' | 'name'>[]): Promise<void>;
}

/**
 * Tries of a job written straight to the SQL queue: with its backoff (1 s doubling, at most
 * 15 minutes) about three hours, as long as the outbox offers a job before giving it up.
 */
const DIRECT_ATTEMPTS = 20;

/** The follow-up writer for `jobs`, relaying through `outbox` when the queue takes no transaction. */
export function createFollowUpWriter({
  jobs,
  outbox,
}: {
  jobs: JobQueue;
  outbox: Pick<Outbox, 'relayAll'>;
}): FollowUpWriter {
  if (jobs.enqueueInTransaction && jobs.wake) {
    return {
      add: async (tx, list) => {
        const direct = list.map(({ name, payload, jobId }) => ({
          name,
          payload,
          jobId,
          attempts: DIRECT_ATTEMPTS,
        }));
        await jobs.enqueueInTransaction?.(tx, direct);
      },
      relay: async (list) => jobs.wake?.(list.map((job) => job.name)),
    };
  }
  return {
    add: (tx, list, now) => insertOutboxJobs(tx, list, now),
    relay: async (list) => {
      await outbox.relayAll([...new Set(list.map((job) => job.jobId))]);
    },
  };
}

/**
 * BENCH_BOUND=follow-up only (bench/README.md, Upper bounds): no follow-up job is written or
 * relayed, so the bench can price what a new incident's follow-up costs.
 */
export const FOLLOW_UPS_SKIPPED: FollowUpWriter = {
  add: async () => {},
  relay: async () => {},
};
