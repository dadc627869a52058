import { TrackerCommentRefusedError } from '../../ports/tracker.js';
import type { Services } from '../../services.js';
import {
  beginTrackerComment,
  trackerCommentPosted,
  trackerCommentRefused,
} from './tracker-comment-records.js';

/**
 * The one way an analysis job comments on its tracker issue, as escalation/card-once.ts is
 * for its card: a job run again (a later step failed, or the process died) does not post a
 * second comment once the first was recorded as posted. The row is written before the post;
 * a post cut off before its end was recorded (the process died while the tracker was taking
 * it) is made once more at most, since the tracker's API cannot say whether it landed; a post
 * the tracker certainly refused (an error status, a refused connection) does not count.
 * Without a tracker API the comment is only logged, and nothing is recorded. A failed post is
 * thrown to the caller, which goes on.
 */
export async function postTrackerCommentOnce(
  services: Pick<Services, 'tracker' | 'store' | 'clock' | 'log'>,
  comment: { jobId: string; issueId: string; text: string },
): Promise<void> {
  const { tracker, store, clock, log } = services;
  if (!tracker.configured) {
    await tracker.postComment(comment.issueId, comment.text);
    return;
  }
  if (!(await beginTrackerComment(store.db, comment.jobId, comment.issueId, clock.now()))) {
    log.info({ issue: comment.issueId }, 'tracker comment already posted for this analysis');
    return;
  }
  try {
    await tracker.postComment(comment.issueId, comment.text);
  } catch (error) {
    if (error instanceof TrackerCommentRefusedError) {
      await trackerCommentRefused(store.db, comment.jobId);
    }
    throw error;
  }
  await trackerCommentPosted(store.db, comment.jobId, clock.now());
}
