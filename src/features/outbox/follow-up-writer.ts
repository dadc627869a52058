import type { Tx } from '../../ports/store.js';
import { insertOutboxJobs, type OutboxJob } from './outbox-records.js';
import { type OutboxDeps, relayFollowUpJobs } from './outbox-relay.js';

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

const writers = new WeakMap<OutboxDeps, FollowUpWriter>();

export function followUpWriter(services: OutboxDeps): FollowUpWriter {
  let writer = writers.get(services);
  if (writer) return writer;
  const { jobs } = services;
  writer =
    jobs.enqueueInTransaction && jobs.wake
      ? {
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
        }
      : {
          add: (tx, list, now) => insertOutboxJobs(tx, list, now),
          relay: async (list) => {
            await relayFollowUpJobs(services, [...new Set(list.map((job) => job.jobId))]);
          },
        };
  writers.set(services, writer);
  return writer;
}
