import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import {
  type CredentialFailures,
  FAILURE_WINDOW_SECONDS,
  FAILURES_BEFORE_BLOCK,
} from '../../ports/credential-failures.js';

/**
 * The limiter allows FAILURES_BEFORE_BLOCK - 1 points a window: the failure that reaches the
 * limit is refused by the limiter, which then blocks the key for a whole window from that
 * moment ("for a minute after the tenth failure").
 */
const LIMITS = {
  points: FAILURES_BEFORE_BLOCK - 1,
  duration: FAILURE_WINDOW_SECONDS,
  blockDuration: FAILURE_WINDOW_SECONDS,
};

function failuresOn(limiter: RateLimiterAbstract): CredentialFailures {
  return {
    async record(key) {
      try {
        return (await limiter.consume(key)).consumedPoints;
      } catch (error) {
        // Over the limit is the point of counting; a store error is the caller's to see.
        if (!(error instanceof RateLimiterRes)) throw error;
        return error.consumedPoints;
      }
    },
    async blockedFor(key) {
      const state = await limiter.get(key);
      if (!state || state.consumedPoints < FAILURES_BEFORE_BLOCK) return 0;
      return Math.max(state.msBeforeNext, 1);
    },
  };
}

/** One process's count: the embedded service is one process. */
export function createMemoryCredentialFailures(): CredentialFailures {
  return failuresOn(new RateLimiterMemory(LIMITS));
}

/** Counted in Redis, so a guess spread over several replicas is counted once. */
export function createRedisCredentialFailures(redis: Redis, prefix: string): CredentialFailures {
  return failuresOn(
    new RateLimiterRedis({
      ...LIMITS,
      storeClient: redis,
      useRedisPackage: false,
      keyPrefix: `${prefix}credential-failures`,
    }),
  );
}
