import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import {
  type CredentialFailures,
  type FailureLimit,
  PER_CREDENTIAL,
} from '../../ports/credential-failures.js';

/**
 * The limiter allows `failures - 1` points a window: the failure that reaches the limit is
 * refused by the limiter, which then blocks the key for a whole window from that moment
 * ("for a minute after the tenth failure").
 */
function limiterOptions(limit: FailureLimit) {
  return {
    points: limit.failures - 1,
    duration: limit.windowSeconds,
    blockDuration: limit.windowSeconds,
  };
}

function failuresOn(limiter: RateLimiterAbstract, limit: FailureLimit): CredentialFailures {
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
      if (!state || state.consumedPoints < limit.failures) return 0;
      return Math.max(state.msBeforeNext, 1);
    },
  };
}

/** One process's count: the embedded service is one process. */
export function createMemoryCredentialFailures(limit = PER_CREDENTIAL): CredentialFailures {
  return failuresOn(new RateLimiterMemory(limiterOptions(limit)), limit);
}

/** Counted in Redis, so a guess spread over several replicas is counted once. */
export function createRedisCredentialFailures(
  redis: Redis,
  prefix: string,
  limit = PER_CREDENTIAL,
): CredentialFailures {
  return failuresOn(
    new RateLimiterRedis({
      ...limiterOptions(limit),
      storeClient: redis,
      useRedisPackage: false,
      keyPrefix: `${prefix}${limit.name}`,
    }),
    limit,
  );
}
