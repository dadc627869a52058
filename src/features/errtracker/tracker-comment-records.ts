import type { Db } from '../../ports/store.js';

/**
 * CONTRACT, Under races, crashes and abuse: a comment cut off mid-flight may be repeated
 * once at most, as the tracker's comment API gives no way to tell whether it landed.
 */
const ATTEMPTS_MAX = 2;

/**
 * Begins a post of the job's comment: true for the caller that may post now. The first call
 * inserts the row; a later one (the job run again) may post once more only while no post was
 * recorded as done and only one was begun and not refused (`trackerCommentRefused`), so a
 * comment is posted at most twice, and twice only when a post was cut off before its end was
 * recorded. One upsert decides, so callers
 * racing on one job see one winner.
 */
export async function beginTrackerComment(
  db: Db,
  jobId: string,
  issueId: string,
  now: number,
): Promise<boolean> {
  const begun = await db
    .insertInto('tracker_comments')
    .values({ job_id: jobId, issue_id: issueId, attempts: 1, posted_at: null, created_at: now })
    .onConflict((oc) =>
      oc
        .column('job_id')
        .doUpdateSet({ attempts: (eb) => eb('tracker_comments.attempts', '+', 1) })
        .where('tracker_comments.posted_at', 'is', null)
        .where('tracker_comments.attempts', '<', ATTEMPTS_MAX),
    )
    .returning('job_id')
    .executeTakeFirst();
  return begun !== undefined;
}

/** The tracker took the comment: no run of the job posts it again. */
export async function trackerCommentPosted(db: Db, jobId: string, now: number): Promise<void> {
  await db
    .updateTable('tracker_comments')
    .set({ posted_at: now })
    .where('job_id', '=', jobId)
    .execute();
}

/**
 * The begun post certainly did not land (the tracker answered an error status, or refused
 * the connection): it does not count as the one post that may have been cut off, so a later
 * run may still post the comment (CONTRACT, Under races, crashes and abuse).
 */
export async function trackerCommentRefused(db: Db, jobId: string): Promise<void> {
  await db
    .updateTable('tracker_comments')
    .set((eb) => ({ attempts: eb('attempts', '-', 1) }))
    .where('job_id', '=', jobId)
    .where('posted_at', 'is', null)
    .where('attempts', '>', 0)
    .execute();
}
