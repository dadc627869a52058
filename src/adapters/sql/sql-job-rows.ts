import type { Selectable } from 'kysely';
import type { TransactionalJob } from '../../ports/jobs.js';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { builtOnce } from '../../support/built-once.js';

/**
 * Row operations of the embedded job queue. Every state change is one guarded UPDATE, so
 * processes sharing the database never need a global lock: whoever's UPDATE matches the
 * row's state wins, everyone else sees zero rows and moves on. `locked_until` doubles as
 * the lease's fencing token: a claim always writes a value later than any earlier lease
 * on the row, so a worker whose lease was taken over can no longer renew or finish it.
 */
export type JobRow = Selectable<Tables['jobs']>;
export type Candidate = Pick<
  JobRow,
  'id' | 'status' | 'locked_until' | 'attempts_made' | 'max_attempts'
>;

export const QUEUED = 'queued';
export const RUNNING = 'running';
export const COMPLETED = 'completed';
export const FAILED = 'failed';

/**
 * Starts allowed beyond max_attempts for runs a dying process interrupted: a restart during
 * the last attempt still gets the job one more run, a job that kills its process every
 * time still stops.
 */
export const INTERRUPTED_GRACE = 1;

/** Inserts a queued job; an existing id is left alone unless it already finished. */
export interface NewJob {
  id: string;
  name: string;
  payload: string;
  maxAttempts: number;
  now: number;
}

/** A job written in its record's transaction (JobQueue.enqueueInTransaction), as a row. */
export function newJobOf(job: TransactionalJob, now: number): NewJob {
  const { jobId: id, name, payload, attempts } = job;
  return { id, name, payload: JSON.stringify(payload), maxAttempts: Math.max(1, attempts), now };
}

/**
 * Inserts jobs in one statement; an id that is still queued or running is left as it is,
 * one that finished is replaced. An id repeated in `jobs` is the same enqueue twice: the
 * first is written (within one statement an id may appear once).
 */
export async function insertJobs(db: Db | Tx, all: readonly NewJob[]): Promise<void> {
  const distinct = new Map<string, NewJob>();
  for (const job of all) if (!distinct.has(job.id)) distinct.set(job.id, job);
  const jobs = [...distinct.values()];
  if (jobs.length > 0) await insertJobRows(db, jobs);
}

/** A job's row, in the order its values are bound (builtOnce checks the two agree). */
const jobRow = (job: NewJob) => ({
  id: job.id,
  name: job.name,
  payload: job.payload,
  status: QUEUED,
  attempts_made: 0,
  max_attempts: job.maxAttempts,
  run_after: job.now,
  locked_until: null,
  last_error: null,
  created_at: job.now,
  updated_at: job.now,
});

/** Built once per row count: a storm's follow-ups insert jobs in every converge batch. */
const insertJobRows = builtOnce(
  (db: Db, jobs: readonly NewJob[]) =>
    db
      .insertInto('jobs')
      .values(jobs.map(jobRow))
      .onConflict((oc) =>
        oc
          .column('id')
          .doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            payload: eb.ref('excluded.payload'),
            status: eb.ref('excluded.status'),
            attempts_made: eb.ref('excluded.attempts_made'),
            max_attempts: eb.ref('excluded.max_attempts'),
            run_after: eb.ref('excluded.run_after'),
            locked_until: eb.ref('excluded.locked_until'),
            last_error: eb.ref('excluded.last_error'),
            created_at: eb.ref('excluded.created_at'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where('jobs.status', 'in', [COMPLETED, FAILED]),
      ),
  (jobs) => [...jobs.flatMap((job) => Object.values(jobRow(job))), COMPLETED, FAILED],
  (jobs) => jobs.length,
);

/** Moves the lease on; false when it was lost (the job was taken over or changed). */
export async function renewLease(
  db: Db,
  id: string,
  leaseUntil: number,
  nextUntil: number,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: nextUntil, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', RUNNING)
    .where('locked_until', '=', leaseUntil)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export type Outcome =
  | { status: typeof COMPLETED }
  /** `refund`: the run does not count as a try (the database, not the job, failed). */
  | { status: typeof QUEUED; runAfter: number; error: string; refund?: boolean }
  | { status: typeof FAILED; error: string };

/** Records how a run ended; false when the lease was lost and the outcome was dropped. */
export async function finishRun(
  db: Db | Tx,
  id: string,
  leaseUntil: number,
  outcome: Outcome,
  now: number,
): Promise<boolean> {
  if (outcome.status === COMPLETED) {
    const { numAffectedRows } = await completeRun(db, { id, leaseUntil, now });
    return (numAffectedRows ?? 0n) > 0n;
  }
  const result = await db
    .updateTable('jobs')
    .set((eb) => ({
      status: outcome.status,
      locked_until: null,
      updated_at: now,
      ...(outcome.status === QUEUED ? { run_after: outcome.runAfter } : {}),
      ...(outcome.status === QUEUED && outcome.refund
        ? { attempts_made: eb('attempts_made', '-', 1) }
        : {}),
      last_error: outcome.error,
    }))
    .where('id', '=', id)
    .where('status', '=', RUNNING)
    .where('locked_until', '=', leaseUntil)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes finished jobs past their retention, so the table does not grow without bound. */
export async function deleteFinished(
  db: Db,
  completedBefore: number,
  failedBefore: number,
): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', COMPLETED), eb('updated_at', '<', completedBefore)]),
        eb.and([eb('status', '=', FAILED), eb('updated_at', '<', failedBefore)]),
      ]),
    )
    .execute();
}

/** The common end of a run, built once: every job that succeeds ends with it. */
const completeRun = builtOnce(
  (db: Db, { id, leaseUntil, now }: { id: string; leaseUntil: number; now: number }) =>
    db
      .updateTable('jobs')
      .set({ status: COMPLETED, locked_until: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', RUNNING)
      .where('locked_until', '=', leaseUntil),
  ({ id, leaseUntil, now }) => [COMPLETED, null, now, id, RUNNING, leaseUntil],
);
