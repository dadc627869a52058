import type { FastifyBaseLogger } from 'fastify';
import { TrackerCommentRefusedError, type TrackerPort } from '../../ports/tracker.js';
import {
  retryAfterHeaderMs,
  retryUpstream,
  UPSTREAM_RETRY,
  type UpstreamFailure,
  type UpstreamRetryOptions,
  wasRefused,
} from '../../support/upstream-retry.js';

/** A failed comment, and whether posting it again is safe. */
class TrackerCommentError extends Error {
  constructor(
    message: string,
    readonly failure: UpstreamFailure,
  ) {
    super(message);
  }
}

const failureOf = (error: unknown): UpstreamFailure => {
  if (error instanceof TrackerCommentError) return error.failure;
  return wasRefused(error) ? { kind: 'refused' } : { kind: 'final' };
};

function failureOfStatus(status: number, retryAfter: string | null): UpstreamFailure {
  if (status === 429)
    return { kind: 'rate-limited', retryAfterMs: retryAfterHeaderMs(retryAfter) ?? 1000 };
  return status >= 500 ? { kind: 'server-error' } : { kind: 'final' };
}

/**
 * CONTRACT: `POST {base}/api/0/issues/{issue_id}/comments/` with `{"text": …}` and a bearer
 * token; without a base the comment is only logged. A 429 waits its `Retry-After`, a 5xx or
 * a refused connection backs off; a timeout is not retried, as the comment may have landed.
 * A comment the tracker certainly did not take rejects with TrackerCommentRefusedError.
 */
export function createHttpTracker(
  options: { apiBase?: string; token?: string; timeoutMs?: number; retry?: UpstreamRetryOptions },
  log: FastifyBaseLogger,
): TrackerPort {
  const { apiBase, token, timeoutMs = 10_000, retry = UPSTREAM_RETRY } = options;
  return {
    configured: Boolean(apiBase),
    async postComment(issueId, text) {
      if (!apiBase) {
        log.info({ issueId }, 'tracker comment not posted: ERRTRACKER_API_BASE is not set');
        return;
      }
      const url = `${apiBase}/api/0/issues/${encodeURIComponent(issueId)}/comments/`;
      const postOnce = async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ text }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (response.ok) return;
        const excerpt = (await response.text()).slice(0, 200);
        throw new TrackerCommentError(
          `Tracker comment failed: HTTP ${response.status} ${excerpt}`,
          failureOfStatus(response.status, response.headers.get('retry-after')),
        );
      };
      try {
        await retryUpstream(postOnce, failureOf, retry);
      } catch (error) {
        // An answer with an error status, or a connection refused, took no comment: the
        // caller may post it again without counting this post as the one maybe landed.
        if (error instanceof TrackerCommentError || wasRefused(error)) {
          const message = error instanceof Error ? error.message : String(error);
          throw new TrackerCommentRefusedError(message, { cause: error });
        }
        throw error;
      }
    },
  };
}
