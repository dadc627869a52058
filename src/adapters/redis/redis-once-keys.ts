import type { Redis } from 'ioredis';
import type { OnceKeys } from '../../ports/once-keys.js';

/** SET NX EX is one atomic command: exactly one caller creates the key until it expires. */
export function createRedisOnceKeys(redis: Redis, prefix: string): OnceKeys {
  return {
    async claim(scope, key, ttlSeconds) {
      // EX only takes whole seconds; rounding up never shortens the promised window.
      const ttl = Math.max(1, Math.ceil(ttlSeconds));
      const reply = await redis.set(`${prefix}once:${scope}:${key}`, '1', 'EX', ttl, 'NX');
      return reply === 'OK';
    },
    async release(scope, key) {
      await redis.del(`${prefix}once:${scope}:${key}`);
    },
  };
}
