/** The error tracker's API, for comments on the issue an analysis was made for. */
export interface TrackerPort {
  /** False when no tracker API is configured (the comment is only logged). */
  readonly configured: boolean;
  postComment(issueId: string, text: string): Promise<void>;
}

/**
 * A comment the tracker certainly did not take: it answered an error status, or the
 * connection was refused before anything was sent. Posting it again cannot post it twice,
 * unlike a post cut off mid-flight (a timeout, a connection dropped after sending).
 */
export class TrackerCommentRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TrackerCommentRefusedError';
  }
}
