import type { FastifyBaseLogger } from 'fastify';
import type { TrackerPort } from '../../ports/tracker.js';

/**
 * CONTRACT: `POST {base}/api/0/issues/{issue_id}/comments/` with `{"text": …}` and a bearer
 * token; without a base the comment is only logged.
 */
export function createHttpTracker(
  options: { apiBase?: string; token?: string; timeoutMs?: number },
  log: FastifyBaseLogger,
): TrackerPort {
  const { apiBase, token, timeoutMs = 10_000 } = options;
  return {
    configured: Boolean(apiBase),
    async postComment(issueId, text) {
      if (!apiBase) {
        log.info({ issueId }, 'tracker comment not posted: ERRTRACKER_API_BASE is not set');
        return;
      }
      const url = `${apiBase}/api/0/issues/${encodeURIComponent(issueId)}/comments/`;
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ text }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        const excerpt = (await response.text()).slice(0, 200);
        throw new Error(`Tracker comment failed: HTTP ${response.status} ${excerpt}`);
      }
    },
  };
}
