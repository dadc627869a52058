import { groupCommit } from '../../support/group-commit.js';
import { markOutboxCompleted } from './outbox-records.js';
import { type OutboxDeps, type OutboxRelay, relayJobs, startOutboxRelay } from './outbox-relay.js';

export type { OutboxDeps, OutboxRelay };

/** The outbox's relaying, built once per service with its queue (createOutbox). */
export interface Outbox {
  /**
   * Hands one committed job to the queue. Never throws: a job not relayed now stays in the
   * outbox with its error, and the background relay tries again. True when this call relayed it.
   */
  relay(jobId: string): Promise<boolean>;
  /**
   * Hands committed jobs to the queue together: one claim and one mark for the lot (an alert
   * storm commits hundreds per batch), the enqueues side by side. Never throws, like relay;
   * returns how many this call relayed.
   */
  relayAll(jobIds: readonly string[]): Promise<number>;
  /**
   * Called by the job when its work is done, as its last step: the row is not offered again.
   * It throws when the database fails, so the job fails and the queue runs it again within
   * seconds (every follow-up job is idempotent); swallowing it would leave the row to wait for
   * its recheck, minutes away. Completions arriving together (a storm's jobs end side by side)
   * are recorded together.
   */
  complete(jobId: string): Promise<void>;
  /**
   * Relays rows left behind by a crash or a queue outage, every second, on every replica; the
   * row lease keeps two relayers from enqueueing one row at once. Start after the job queue.
   */
  startRelay(): OutboxRelay;
  /** Settles once the completions asked for so far are recorded. */
  close(): Promise<void>;
}

export function createOutbox(deps: OutboxDeps): Outbox {
  /** When the queue last refused a job: the relay keeps its quick pace after that. */
  let lastRefusal = 0;
  /** The running relay's way to take its quick pace at once after a refusal. */
  let hurry: (() => void) | undefined;
  const completions = groupCommit<string>((jobIds) =>
    markOutboxCompleted(deps.store.db, [...new Set(jobIds)], Date.now()),
  );
  const relayAll = (jobIds: readonly string[]) =>
    relayJobs(deps, jobIds, () => {
      lastRefusal = Date.now();
      hurry?.();
    });
  return {
    relayAll,
    relay: async (jobId) => (await relayAll([jobId])) === 1,
    complete: (jobId) => completions.add(jobId),
    startRelay() {
      const relay = startOutboxRelay(deps, relayAll, () => lastRefusal);
      hurry = relay.hurry;
      return {
        async stop() {
          if (hurry === relay.hurry) hurry = undefined;
          await relay.stop();
        },
      };
    },
    close: () => completions.settled(),
  };
}
