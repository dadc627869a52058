import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedisCredentialFailures } from '../../src/adapters/rate-limiter/credential-failures.js';
import { sharedBlockReads } from '../../src/adapters/rate-limiter/shared-block-reads.js';
import {
  type CredentialFailures,
  FAILURES_BEFORE_BLOCK,
} from '../../src/ports/credential-failures.js';
import { makeRedis, redisUrlForTests, type TestRedis } from '../helpers/backends.js';

/** The Redis count, with the reads that reach it counted. */
function countedReads(failures: CredentialFailures) {
  const reads: string[] = [];
  const counted: CredentialFailures = {
    record: (address) => failures.record(address),
    blockedFor: (address) => {
      reads.push(address);
      return failures.blockedFor(address);
    },
  };
  return { counted, reads };
}

describe.skipIf(!redisUrlForTests())('block reads shared per event-loop turn, on Redis', () => {
  let redis: TestRedis;

  beforeEach(async () => {
    redis = await makeRedis();
  });

  afterEach(async () => {
    await redis.cleanup();
  });

  it('answers the requests of one turn with one read per address', async () => {
    const { counted, reads } = countedReads(
      createRedisCredentialFailures(redis.redis, redis.prefix),
    );
    const failures = sharedBlockReads(counted);
    const answers = await Promise.all([
      ...Array.from({ length: 50 }, () => failures.blockedFor('10.0.0.1')),
      ...Array.from({ length: 5 }, () => failures.blockedFor('10.0.0.2')),
    ]);
    expect(answers.every((waitMs) => waitMs === 0)).toBe(true);
    expect(reads.sort()).toEqual(['10.0.0.1', '10.0.0.2']);
  });

  it('sends a read asked before a failure ahead of it, and one asked after it behind it', async () => {
    const failures = sharedBlockReads(createRedisCredentialFailures(redis.redis, redis.prefix));
    for (let n = 1; n < FAILURES_BEFORE_BLOCK; n++) await failures.record('10.0.0.3');
    // One turn: a read, the tenth failure, another read.
    const before = failures.blockedFor('10.0.0.3');
    const tenth = failures.record('10.0.0.3');
    const after = failures.blockedFor('10.0.0.3');
    expect(await before).toBe(0);
    expect(await tenth).toBe(FAILURES_BEFORE_BLOCK);
    expect(await after).toBeGreaterThan(50_000);
  });

  it('holds a read back behind a failure recorded while an earlier one was in flight', async () => {
    const redisCount = createRedisCredentialFailures(redis.redis, redis.prefix);
    // The real count, where the tenth failure reaches Redis 50 ms late (a reconnect, a full
    // pipeline) while the ninth goes at once.
    let sent = 0;
    const lateFailures: CredentialFailures = {
      record: async (address) => {
        sent += 1;
        if (sent === FAILURES_BEFORE_BLOCK) await new Promise((resolve) => setTimeout(resolve, 50));
        return redisCount.record(address);
      },
      blockedFor: (address) => redisCount.blockedFor(address),
    };
    const failures = sharedBlockReads(lateFailures);
    for (let n = 2; n < FAILURES_BEFORE_BLOCK; n++) await failures.record('10.0.0.5');
    // The ninth failure and a read behind it; the read's turn ends while the ninth is in
    // flight, then the tenth failure and another read arrive before the ninth is answered.
    const ninth = failures.record('10.0.0.5');
    const behindNinth = failures.blockedFor('10.0.0.5');
    await new Promise((resolve) => setImmediate(resolve));
    const tenth = failures.record('10.0.0.5');
    const behindTenth = failures.blockedFor('10.0.0.5');
    expect(await ninth).toBe(FAILURES_BEFORE_BLOCK - 1);
    expect(await tenth).toBe(FAILURES_BEFORE_BLOCK);
    expect(await behindTenth).toBeGreaterThan(50_000);
    await behindNinth;
  });

  it('keeps addresses apart: a failure in flight for one never holds back reads of another', async () => {
    const redisCount = createRedisCredentialFailures(redis.redis, redis.prefix);
    // The real count, with one address's failures answered two seconds late.
    const slowForOne: CredentialFailures = {
      record: async (address) => {
        const count = await redisCount.record(address);
        if (address === '10.0.0.6') await new Promise((resolve) => setTimeout(resolve, 2_000));
        return count;
      },
      blockedFor: (address) => redisCount.blockedFor(address),
    };
    const failures = sharedBlockReads(slowForOne);
    const failure = failures.record('10.0.0.6');
    const started = Date.now();
    expect(await failures.blockedFor('10.0.0.7')).toBe(0);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await failure).toBe(1);
  });

  it('fails every request that shared a read the store could not answer', async () => {
    // A port nothing listens on, no reconnecting and no offline queue: each read fails at once.
    const dead = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => undefined);
    const failures = sharedBlockReads(createRedisCredentialFailures(dead, redis.prefix));
    const answers = await Promise.allSettled(
      Array.from({ length: 3 }, () => failures.blockedFor('10.0.0.4')),
    );
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'rejected']);
    dead.disconnect();
  });
});
