/** The error tracker's API, for comments on the issue an analysis was made for. */
export interface TrackerPort {
  /** False when no tracker API is configured (the comment is only logged). */
  readonly configured: boolean;
  postComment(issueId: string, text: string): Promise<void>;
}
