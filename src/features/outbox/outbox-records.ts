import type { Db, Tx } from '../../ports/store.js';
import { unindexed } from '../../support/unindexed.js';

/**
 * The `outbox` table's one module. A row is a job committed together with the record it
 * follows; the relay (outbox-relay.ts) hands it to the job queue, and offers it again until
 * the job reports completion. `relay_after` is real time (Date.now()), since it paces
 * relayers rather than dating anything in the domain.
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
  /** How often the queue took the job so far. */
  attempts: number;
  last_error: string | null;
}

/** Inside the transaction that writes the records the jobs follow. A repeat id is ignored. */
export async function insertOutboxJobs(
  tx: Tx,
  jobs: readonly OutboxJob[],
  now: number,
): Promise<void> {
  if (jobs.length === 0) return;
  await tx
    .insertInto('outbox')
    .values(
      jobs.map((job) => ({
        job_id: job.jobId,
        job_name: job.name,
        payload: JSON.stringify(job.payload),
        created_at: now,
        relay_after: 0,
        last_error: null,
        relayed_at: null,
        completed_at: null,
        gave_up_at: null,
      })),
    )
    .onConflict((oc) => oc.column('job_id').doNothing())
    .execute();
}

/**
 * Takes the rows of `jobIds` that are not completed and due (not leased by another relayer,
 * not waiting for their job to report), leasing them until `leaseUntil`; rows completed, not
 * due or unknown are left out. A relayer that dies leaves the lease to run out, and the row
 * is taken again.
 */
export async function claimOutboxRows(
  db: Db,
  jobIds: readonly string[],
  realNow: number,
  leaseUntil: number,
): Promise<ClaimedOutboxRow[]> {
  if (jobIds.length === 0) return [];
  return db
    .updateTable('outbox')
    .set({ relay_after: leaseUntil })
    .where('job_id', 'in', jobIds)
    .where(unindexed(db, 'completed_at'), 'is', null)
    .where('relay_after', '<=', realNow)
    .returning(['job_id', 'job_name', 'payload', 'attempts', 'last_error'])
    .execute();
}

/** Ids of rows not completed whose lease or wait is over, oldest first. */
export async function dueOutboxJobIds(db: Db, realNow: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox')
    .select('job_id')
    .where('completed_at', 'is', null)
    .where('relay_after', '<=', realNow)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.job_id);
}

/** The queue took the jobs; unless each reports completion by `recheckAt`, it is offered again. */
export async function markOutboxRelayed(
  db: Db,
  jobIds: readonly string[],
  now: number,
  recheckAt: number,
): Promise<void> {
  if (jobIds.length === 0) return;
  await db
    .updateTable('outbox')
    .set((eb) => ({ relayed_at: now, relay_after: recheckAt, attempts: eb('attempts', '+', 1) }))
    .where('job_id', 'in', jobIds)
    .where(unindexed(db, 'completed_at'), 'is', null)
    .execute();
}

/**
 * Every row the queue took and has not reported on is due again now: the queue may have lost
 * it. A job still queued or running is not enqueued twice (JobQueue), so the cost is small.
 */
export async function reofferRelayed(db: Db, realNow: number): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ relay_after: realNow })
    .where('completed_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .where('relayed_at', 'is not', null)
    .where('relay_after', '>', realNow)
    .execute();
}

/** The jobs did their work; rows unknown or already completed are left as they are. */
export async function markOutboxCompleted(
  db: Db,
  jobIds: readonly string[],
  now: number,
): Promise<void> {
  if (jobIds.length === 0) return;
  await db
    .updateTable('outbox')
    .set({ completed_at: now })
    .where('job_id', 'in', jobIds)
    .where(unindexed(db, 'completed_at'), 'is', null)
    .execute();
}

/**
 * Offered too often without completing: never offered again, kept with its last error. False
 * when the job completed meanwhile.
 */
export async function markOutboxGivenUp(db: Db, jobId: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({ gave_up_at: now, relay_after: Number.MAX_SAFE_INTEGER })
    .where('job_id', '=', jobId)
    .where('completed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
    .where('completed_at', 'is', null)
    .execute();
}

/** Completed rows are kept a while for inspection, then removed. */
export async function deleteCompletedBefore(db: Db, before: number): Promise<void> {
  await db
    .deleteFrom('outbox')
    .where('completed_at', 'is not', null)
    .where('completed_at', '<', before)
    .execute();
}

/**
 * Rows whose job has not reported completion and was not given up: committed and waiting to
 * be handed to the queue, queued or running, or handed over and waiting to be offered again.
 */
export async function countOutboxBacklog(db: Db): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('completed_at', 'is', null)
    .where('gave_up_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
