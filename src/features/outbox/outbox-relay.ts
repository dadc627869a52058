import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import {
  claimOutboxRow,
  deleteRelayedBefore,
  dueOutboxJobIds,
  insertOutboxJob,
  markOutboxRelayed,
  noteOutboxFailure,
  type OutboxJob,
} from './outbox-records.js';

/**
 * Transactional follow-up. A feature that commits a record and owes it a background job
 * (an incident its card and repair evaluation, an approval its evaluation) writes the job
 * here in the record's own transaction (`addFollowUpJob`), then relays it once committed
 * (`relayFollowUpJob`). When the process dies between the two, or the queue refuses the job,
 * the background relay (`startOutboxRelay`) hands it over later: every committed record gets
 * its job. It lives beside the features rather than in the jobs adapter because it works
 * the same in front of either queue (the JobQueue port takes no transaction).
 */

/** How long one relayer holds a row; longer than any enqueue takes. */
const LEASE_MS = 30_000;
/** How soon a job the queue refused is offered again. */
const RETRY_MS = 1_000;
/** How often the background relay looks for rows left behind. */
const RELAY_EVERY_MS = 1_000;
const RELAY_BATCH = 100;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const KEEP_RELAYED_MS = 24 * 60 * 60 * 1000;

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
    try {
      await jobs.enqueue(row.job_name, JSON.parse(row.payload) as Record<string, unknown>, {
        jobId: row.job_id,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await noteOutboxFailure(store.db, jobId, Date.now() + RETRY_MS, message);
      log.warn({ err: error, jobId }, 'outbox: job not enqueued; the relay will retry');
      return false;
    }
    await markOutboxRelayed(store.db, jobId, Date.now());
    return true;
  } catch (error) {
    // The database failed: the row keeps its lease, which runs out, and is relayed then.
    log.error({ err: error, jobId }, 'outbox: relay failed; the relay will retry');
    return false;
  }
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
        await deleteRelayedBefore(store.db, Date.now() - KEEP_RELAYED_MS);
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
