import type { Db } from '../../ports/store.js';
import { builtOnce } from '../../support/built-once.js';
import { unindexed } from '../../support/unindexed.js';
import { type Candidate, FAILED, type JobRow, QUEUED, RUNNING } from './sql-job-rows.js';

/**
 * How the embedded job queue finds work and takes it: each claim is one guarded UPDATE that
 * only the first of several processes can match (sql-job-rows.ts has the rest of a run).
 */

/**
 * The names among `names` that have work: a queued job due, or a run whose lease ran out (its
 * process died). One statement for every name, so an idle queue costs one read per poll;
 * each part is a range of the (status, run_after) index.
 */
export async function namesWithWork(
  db: Db,
  names: readonly string[],
  now: number,
): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await db
    .selectFrom('jobs')
    .select('name')
    .where('status', '=', QUEUED)
    .where('run_after', '<=', now)
    .union(
      db
        .selectFrom('jobs')
        .select('name')
        .where('status', '=', RUNNING)
        .where('locked_until', '<', now),
    )
    .execute();
  const wanted = new Set(names);
  return rows.map((row) => row.name).filter((name) => wanted.has(name));
}

/**
 * Jobs of `name` that are due, and with `withAbandoned` those whose lease ran out while
 * running (their process died). Two queries, each a range of the (name, status, run_after)
 * index: one with an OR would read every job of the name and sort them, which grows with a
 * backlog.
 */
export async function findDue(
  db: Db,
  name: string,
  now: number,
  limit: number,
  withAbandoned = true,
): Promise<Candidate[]> {
  const due = (await dueJobs(db, { name, now, limit })).rows;
  if (!withAbandoned) return due;
  const abandoned = (await abandonedJobs(db, { name, now, limit })).rows;
  return [...abandoned, ...due].slice(0, limit);
}

const CANDIDATE_COLUMNS = [
  'id',
  'status',
  'locked_until',
  'attempts_made',
  'max_attempts',
] as const;
type Look = { name: string; now: number; limit: number };
const candidatesOf = (db: Db, name: string) =>
  db.selectFrom('jobs').select(CANDIDATE_COLUMNS).where('name', '=', name);

// Every poll and every wake-up of the queue runs these: built once, then only bound.
const dueJobs = builtOnce(
  (db: Db, { name, now, limit }: Look) =>
    candidatesOf(db, name)
      .where('status', '=', QUEUED)
      .where('run_after', '<=', now)
      .orderBy('run_after')
      .limit(limit),
  ({ name, now, limit }) => [name, QUEUED, now, limit],
);

const abandonedJobs = builtOnce(
  (db: Db, { name, now, limit }: Look) =>
    candidatesOf(db, name)
      .where('status', '=', RUNNING)
      .where('locked_until', '<', now)
      .limit(limit),
  ({ name, now, limit }) => [name, RUNNING, now, limit],
);

/** What every claim writes: running, one more try, the lease. */
const claiming = (db: Db, now: number, leaseUntil: number) =>
  db.updateTable('jobs').set((eb) => ({
    status: RUNNING,
    attempts_made: eb('attempts_made', '+', 1),
    locked_until: leaseUntil,
    updated_at: now,
  }));

/** Takes the job if it is still in the state `seen` found it in; undefined when another won. */
export async function claimJob(
  db: Db,
  seen: Candidate,
  now: number,
  leaseUntil: number,
): Promise<JobRow | undefined> {
  let query = claiming(db, now, leaseUntil).where('id', '=', seen.id);
  query =
    seen.status === QUEUED
      ? query.where('status', '=', QUEUED).where('run_after', '<=', now)
      : query.where('status', '=', RUNNING).where('locked_until', '=', seen.locked_until);
  return query.returningAll().executeTakeFirst();
}

/**
 * Takes every one of `ids` still queued and due, in one statement; the rows it returns are
 * this caller's (another process's claim of the same row matched first, or not at all).
 */
export function claimQueuedJobs(
  db: Db,
  name: string,
  ids: readonly string[],
  now: number,
  leaseUntil: number,
): Promise<JobRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return claimQueued(db, { name, ids, now, leaseUntil }).then((result) => result.rows);
}

type Claim = { name: string; ids: readonly string[]; now: number; leaseUntil: number };
const claimQueued = builtOnce(
  (db: Db, { name, ids, now, leaseUntil }: Claim) =>
    claiming(db, now, leaseUntil)
      .where('id', 'in', ids)
      .where(unindexed(db, 'name'), '=', name)
      .where(unindexed(db, 'status'), '=', QUEUED)
      .where('run_after', '<=', now)
      .returningAll(),
  ({ name, ids, now, leaseUntil }) => [RUNNING, 1, leaseUntil, now, ...ids, name, QUEUED, now],
  ({ ids }) => ids.length,
);

/** Fails an interrupted job that has used up its starts, instead of claiming it again. */
export async function abandonInterrupted(db: Db, seen: Candidate, now: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({
      status: FAILED,
      locked_until: null,
      last_error: 'interrupted: its process stopped while running it',
      updated_at: now,
    })
    .where('id', '=', seen.id)
    .where('status', '=', RUNNING)
    .where('locked_until', '=', seen.locked_until)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
