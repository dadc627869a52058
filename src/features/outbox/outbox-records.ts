import type { Db, Tx } from '../../ports/store.js';

/**
 * The `outbox` table's one module. A row is a job committed together with the record it
 * follows; the relay (outbox-relay.ts) hands it to the job queue. `relay_after` is real time
 * (Date.now()), since it paces relayers rather than dating anything in the domain.
 */

export interface OutboxJob {
  name: string;
  payload: Record<string, unknown>;
  /** The queue's job id: a second relay of the same row is a no-op while the job waits. */
  jobId: string;
}

export interface ClaimedOutboxRow {
  job_id: string;
  job_name: string;
  payload: string;
}

/** Inside the transaction that writes the record the job follows. A repeat id is ignored. */
export async function insertOutboxJob(tx: Tx, job: OutboxJob, now: number): Promise<void> {
  await tx
    .insertInto('outbox')
    .values({
      job_id: job.jobId,
      job_name: job.name,
      payload: JSON.stringify(job.payload),
      created_at: now,
      relay_after: 0,
      last_error: null,
      relayed_at: null,
    })
    .onConflict((oc) => oc.column('job_id').doNothing())
    .execute();
}

/**
 * Takes a row not yet relayed and not leased by another relayer, leasing it until
 * `leaseUntil`; undefined when it is relayed, leased or unknown. A relayer that dies leaves
 * the lease to run out, and the row is taken again.
 */
export async function claimOutboxRow(
  db: Db,
  jobId: string,
  realNow: number,
  leaseUntil: number,
): Promise<ClaimedOutboxRow | undefined> {
  return db
    .updateTable('outbox')
    .set((eb) => ({ relay_after: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('job_id', '=', jobId)
    .where('relayed_at', 'is', null)
    .where('relay_after', '<=', realNow)
    .returning(['job_id', 'job_name', 'payload'])
    .executeTakeFirst();
}

/** Ids of rows waiting to be relayed whose lease or retry wait is over, oldest first. */
export async function dueOutboxJobIds(db: Db, realNow: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox')
    .select('job_id')
    .where('relayed_at', 'is', null)
    .where('relay_after', '<=', realNow)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.job_id);
}

export async function markOutboxRelayed(db: Db, jobId: string, now: number): Promise<void> {
  await db.updateTable('outbox').set({ relayed_at: now }).where('job_id', '=', jobId).execute();
}

/** The queue refused the job: the row stays, with why, and is tried again after `retryAt`. */
export async function noteOutboxFailure(
  db: Db,
  jobId: string,
  retryAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ relay_after: retryAt, last_error: error.slice(0, 2000) })
    .where('job_id', '=', jobId)
    .where('relayed_at', 'is', null)
    .execute();
}

/** Relayed rows have done their work; the queue keeps the job from here on. */
export async function deleteRelayedBefore(db: Db, before: number): Promise<void> {
  await db
    .deleteFrom('outbox')
    .where('relayed_at', 'is not', null)
    .where('relayed_at', '<', before)
    .execute();
}
