import type { Redis } from 'ioredis';
import { DEFAULT_LEASE_TTL_MS, type LeaseOptions, type Leases } from '../../ports/lease.js';

/** Extends the key's life only while it still names this holder: one atomic step. */
const COMPARE_AND_RENEW = `
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`;

/** Deletes the key only while it still names this holder, never a lease taken over since. */
const COMPARE_AND_DELETE = `
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`;

/** One key per lease holding its holder's token; Redis expires it when renewals stop. */
export function createRedisLeases(
  redis: Redis,
  prefix: string,
  options: LeaseOptions = {},
): Leases {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const keyOf = (name: string) => `${prefix}lease:${name}`;
  const renew = async (name: string, holder: string) =>
    Number(await redis.eval(COMPARE_AND_RENEW, 1, keyOf(name), holder, ttlMs)) === 1;
  return {
    ttlMs,
    async acquire(name, holder) {
      const reply = await redis.set(keyOf(name), holder, 'PX', ttlMs, 'NX');
      // Already ours (a retry after an answer that was lost): renewing it says so.
      return reply === 'OK' || renew(name, holder);
    },
    renew,
    async release(name, holder) {
      await redis.eval(COMPARE_AND_DELETE, 1, keyOf(name), holder);
    },
  };
}
