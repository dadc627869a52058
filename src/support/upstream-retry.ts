import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How a call to an upstream we write to (the chat API, the tracker) failed, for the one
 * decision that matters: may it be sent again without the risk of doing it twice?
 *
 * - `rate-limited`: the upstream refused it (429) and said when to come back.
 * - `server-error`: a 5xx answer, so the request was not carried out.
 * - `refused`: the connection was never made, so nothing arrived.
 * - `final`: anything else. A 4xx will not change; a timeout or a dropped connection may
 *   have delivered the request, and a second send could post the message twice.
 */
export type UpstreamFailure =
  | { kind: 'rate-limited'; retryAfterMs: number }
  | { kind: 'server-error' }
  | { kind: 'refused' }
  | { kind: 'final' };

export interface UpstreamRetryOptions {
  /** Tries in all, the first included. */
  attempts: number;
  /** The wait after the first 5xx or refused connection; doubled after each. */
  firstBackoffMs: number;
  /** A 429 asking for a longer wait is given up on rather than retried early. */
  maxRetryAfterMs: number;
  /** Ends a wait early (shutdown); the last failure is then thrown. */
  signal?: AbortSignal;
}

export const UPSTREAM_RETRY: UpstreamRetryOptions = {
  attempts: 4,
  firstBackoffMs: 500,
  maxRetryAfterMs: 30_000,
};

/** Runs `attempt` until it succeeds or a failure may not or should not be retried. */
export async function retryUpstream<T>(
  attempt: () => Promise<T>,
  failureOf: (error: unknown) => UpstreamFailure,
  options: UpstreamRetryOptions = UPSTREAM_RETRY,
): Promise<T> {
  let backoffMs = options.firstBackoffMs;
  for (let tries = 1; ; tries += 1) {
    try {
      return await attempt();
    } catch (error) {
      const failure = failureOf(error);
      if (tries >= options.attempts || failure.kind === 'final') throw error;
      let waitMs = backoffMs;
      if (failure.kind === 'rate-limited') {
        if (failure.retryAfterMs > options.maxRetryAfterMs) throw error;
        waitMs = failure.retryAfterMs;
      } else {
        backoffMs *= 2;
      }
      if (options.signal?.aborted) throw error;
      try {
        await sleep(waitMs, undefined, { signal: options.signal });
      } catch {
        throw error;
      }
    }
  }
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110); undefined when absent or unreadable. */
export function retryAfterHeaderMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** fetch's own failure: `ECONNREFUSED` in its cause means the request never left. */
export function wasRefused(error: unknown): boolean {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'ECONNREFUSED';
}
