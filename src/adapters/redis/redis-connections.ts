import { type Redis, type RedisOptions, ReplyError } from 'ioredis';
import { DependencyUnavailableError } from '../../ports/unavailable.js';

/**
 * How long a request waits on Redis at most. Without a bound, ioredis keeps commands in its
 * offline queue while it reconnects, and a Redis outage hangs requests (11.7 s seen) instead
 * of failing them. CONTRACT, Under races, crashes and abuse: a request that needs a hung
 * Redis answers 503 within 2 s, so one wait must leave room for the rest of the request.
 */
export const REDIS_WAIT_MS = 1000;

/**
 * Connections that requests wait on: no offline queue (a command while disconnected fails at
 * once), a per-command timeout (a Redis that accepts the connection but never answers), and
 * one retry of a command cut off by a dropped connection. ioredis still reconnects by itself.
 *
 * The socket timeout drops a connection on which nothing has arrived for that long while
 * commands wait: with a hung Redis (SIGSTOP, a stuck host) the connection is then not ready
 * until Redis answers its handshake again, and every further command fails at once instead
 * of each waiting out its own timeout (a console decision that touched Redis three times
 * took 6 s). Redis answering again makes the connection ready within one reconnect delay.
 */
export const BOUNDED_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: REDIS_WAIT_MS,
  socketTimeout: REDIS_WAIT_MS,
  maxRetriesPerRequest: 1,
};

/**
 * For connections duplicated from a bounded one that block (XREADGROUP BLOCK) or subscribe:
 * they wait by design and send their first command before they are connected, so they keep
 * ioredis's defaults: the offline queue, 20 retries, no per-command timeout and no socket
 * timeout (a blocking read receives nothing for as long as it blocks).
 */
export const WAITING_REDIS_OPTIONS: RedisOptions = {
  enableOfflineQueue: true,
  commandTimeout: undefined,
  socketTimeout: undefined,
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

/** The bounded connections to one Redis server, watched for a hang together. */
export interface RedisHangWatch {
  watch(connection: Redis): void;
}

/**
 * A hang one bounded connection finds (its socket timed out) is the server's: the others
 * are dropped too, and reconnect by themselves. Otherwise a request that uses two of them
 * (the main connection, then the job queues') waits out one timeout on each.
 */
export function createRedisHangWatch(): RedisHangWatch {
  const connections = new Set<Redis>();
  return {
    watch(connection) {
      connections.add(connection);
      connection.on('error', (error: Error) => {
        if (!error.message.startsWith('Socket timeout')) return;
        for (const other of connections) {
          if (other !== connection && other.status === 'ready') other.disconnect(true);
        }
      });
      connection.once('end', () => connections.delete(connection));
    },
  };
}

/**
 * A Redis reply error (WRONGTYPE, OOM, …) is Redis's own answer and stays as it is; anything
 * else (timeout, offline, closed connection) is reported as `Redis unavailable`, the driver's
 * wording kept only as the cause for the log.
 */
export function asRedisFailure(error: unknown): Error {
  if (error instanceof ReplyError) return error as Error;
  return new DependencyUnavailableError('Redis', { cause: error });
}
