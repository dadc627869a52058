import { type Redis, type RedisOptions, ReplyError } from 'ioredis';

/**
 * How long a request waits on Redis at most. Without a bound, ioredis keeps commands in its
 * offline queue while it reconnects, and a Redis outage hangs requests (11.7 s seen) instead
 * of failing them.
 */
export const REDIS_WAIT_MS = 2000;

/**
 * Connections that requests wait on: no offline queue (a command while disconnected fails at
 * once), a per-command timeout (a Redis that accepts the connection but never answers), and
 * one retry of a command cut off by a dropped connection. ioredis still reconnects by itself.
 */
export const BOUNDED_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: REDIS_WAIT_MS,
  maxRetriesPerRequest: 1,
};

/**
 * For connections duplicated from a bounded one that block (XREADGROUP BLOCK) or subscribe:
 * they wait by design and send their first command before they are connected, so they keep
 * ioredis's defaults: the offline queue, 20 retries and no per-command timeout.
 */
export const WAITING_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: true,
  commandTimeout: undefined,
  maxRetriesPerRequest: 20,
};

/**
 * A second connection for blocking reads or subscriptions. Its connection errors are the
 * ones the main connection already logs (one line per outage, not one per connection), and
 * without a listener ioredis would print them to stderr as "Unhandled error event".
 */
export function waitingConnection(redis: Redis): Redis {
  const connection = redis.duplicate({ ...WAITING_REDIS_OPTIONS, enableAutoPipelining: false });
  connection.on('error', () => {});
  return connection;
}

/**
 * A Redis reply error (WRONGTYPE, OOM, …) is Redis's own answer and stays as it is; anything
 * else (timeout, offline, closed connection) is reported as `Redis unavailable`, the driver's
 * wording kept only as the cause for the log.
 */
export function asRedisFailure(error: unknown): Error {
  if (error instanceof ReplyError) return error as Error;
  return new Error('Redis unavailable', { cause: error });
}
