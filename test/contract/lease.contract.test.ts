import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLeases } from '../../src/adapters/memory/memory-leases.js';
import { createRedisLeases } from '../../src/adapters/redis/redis-leases.js';
import type { Leases } from '../../src/ports/lease.js';
import { makeRedis, redisUrlForTests } from '../helpers/backends.js';

const TTL_MS = 400;

interface LeaseFixture {
  leases: Leases;
  /** Another instance on the same backend, as another replica would have. */
  peer(): Leases;
  cleanup(): Promise<void>;
}

interface LeaseBackend {
  name: string;
  open(): Promise<LeaseFixture>;
}

const memoryBackend: LeaseBackend = {
  name: 'memory leases',
  async open() {
    // One process shares one table of leases: a peer is the same instance.
    const leases = createMemoryLeases({ ttlMs: TTL_MS });
    return { leases, peer: () => leases, cleanup: async () => undefined };
  },
};

function redisBackend(url: string): LeaseBackend {
  return {
    name: 'redis leases',
    async open() {
      const { redis, prefix, cleanup } = await makeRedis();
      const others: Redis[] = [];
      return {
        leases: createRedisLeases(redis, prefix, { ttlMs: TTL_MS }),
        peer() {
          const connection = new Redis(url, { enableAutoPipelining: true });
          others.push(connection);
          return createRedisLeases(connection, prefix, { ttlMs: TTL_MS });
        },
        async cleanup() {
          for (const connection of others) connection.disconnect();
          await cleanup();
        },
      };
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const redisUrl = redisUrlForTests();
const backends: LeaseBackend[] = [memoryBackend, ...(redisUrl ? [redisBackend(redisUrl)] : [])];

describe.each(backends)('lease contract: $name', (backend) => {
  let fixture: LeaseFixture;
  let leases: Leases;

  beforeEach(async () => {
    fixture = await backend.open();
    leases = fixture.leases;
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  it('gives the lease to one holder, and again to that holder only', async () => {
    const peer = fixture.peer();
    expect(leases.ttlMs).toBe(TTL_MS);
    expect(await leases.acquire('polling', 'a')).toBe(true);
    expect(await peer.acquire('polling', 'b')).toBe(false);
    expect(await leases.acquire('polling', 'a')).toBe(true);
    expect(await peer.renew('polling', 'b')).toBe(false);
    expect(await leases.acquire('other', 'b')).toBe(true);
  });

  it('gives exactly one of 50 concurrent holders the lease', async () => {
    const peer = fixture.peer();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, n) => (n % 2 ? leases : peer).acquire('race', `h${n}`)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('keeps a renewed lease past its ttl', async () => {
    expect(await leases.acquire('polling', 'a')).toBe(true);
    for (let n = 0; n < 4; n++) {
      await sleep(TTL_MS / 3);
      expect(await leases.renew('polling', 'a')).toBe(true);
    }
    expect(await fixture.peer().acquire('polling', 'b')).toBe(false);
  });

  it('lets another take a lease whose holder stopped renewing, once the ttl has passed', async () => {
    const peer = fixture.peer();
    expect(await leases.acquire('polling', 'a')).toBe(true);
    await sleep(TTL_MS / 2);
    expect(await peer.acquire('polling', 'b')).toBe(false);
    await sleep(TTL_MS / 2 + 100);
    expect(await peer.acquire('polling', 'b')).toBe(true);
    // The old holder finds out at its next renewal, and its release leaves the new lease.
    expect(await leases.renew('polling', 'a')).toBe(false);
    await leases.release('polling', 'a');
    expect(await leases.acquire('polling', 'a')).toBe(false);
  });

  it('a released lease is free at once', async () => {
    expect(await leases.acquire('polling', 'a')).toBe(true);
    await leases.release('polling', 'a');
    expect(await fixture.peer().acquire('polling', 'b')).toBe(true);
    expect(await leases.renew('polling', 'a')).toBe(false);
  });
});
