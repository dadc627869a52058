import type { Redis } from 'ioredis';
import type { StreamEntry, StreamPort } from '../../ports/stream.js';
import { createReclaimLooks } from '../../support/reclaim-looks.js';
import { asRedisFailure, waitingConnection } from './redis-connections.js';
import { BACKLOG, redisScript, TRIM } from './redis-stream-scripts.js';

type RawEntry = [id: string, fields: string[] | null];

const trimScript = redisScript(TRIM);
const backlogScript = redisScript(BACKLOG);
/**
 * As the SQL stream: each process trims once per a tenth of the limit (at least 100) of its
 * appends, and on its first, so a plain XADD serves the others (a third of the cost).
 */
const trimStep = (maxLen: number) => Math.max(100, Math.floor(maxLen / 10));

/**
 * Redis Streams. Non-blocking commands share the caller's (auto-pipelined) connection; each
 * blocking XREADGROUP gets a connection of its own from a small lazily grown pool, because a
 * blocked connection runs nothing else until the block ends.
 */
export function createRedisStream(redis: Redis, prefix: string): StreamPort {
  const idle: Redis[] = [];
  const owned = new Set<Redis>();
  const appendsSinceTrim = new Map<string, number>();
  const reclaimLooks = createReclaimLooks();
  let closed = false;

  function borrowBlocking(): Redis {
    const spare = idle.pop();
    if (spare) return spare;
    const connection = waitingConnection(redis);
    owned.add(connection);
    return connection;
  }

  function retire(connection: Redis) {
    owned.delete(connection);
    connection.disconnect();
  }

  function assertOpen() {
    if (closed) throw new Error('Stream is closed: no more appends or group reads');
  }

  return {
    async append(stream, fields, maxLen) {
      assertOpen();
      const key = prefix + stream;
      // A loop, not Object.entries().flat(): every signal request pays for this line.
      const pairs: string[] = [];
      for (const name in fields) pairs.push(name, fields[name]!);
      const limit = String(Math.max(0, Math.floor(maxLen)));
      // Appends come from requests: a Redis outage is reported as such, not in driver words.
      const id = await redis.xadd(key, '*', ...pairs).catch((error: unknown) => {
        throw asRedisFailure(error);
      });
      if (id === null) throw new Error(`XADD to "${stream}" returned no id`);
      const since = (appendsSinceTrim.get(stream) ?? Number.POSITIVE_INFINITY) + 1;
      appendsSinceTrim.set(stream, since >= trimStep(maxLen) ? 0 : since);
      if (since >= trimStep(maxLen)) {
        // The entry is in: a failed trim only leaves the stream longer, so the next append
        // tries again instead of reporting an accepted entry as failed.
        await trimScript(redis, key, [limit]).catch(() => {
          appendsSinceTrim.set(stream, Number.POSITIVE_INFINITY);
        });
      }
      return id;
    },

    async range(stream, options) {
      const limit = Math.floor(options.limit);
      if (limit <= 0) return [];
      const key = prefix + stream;
      const bound = options.from === undefined ? undefined : `(${options.from}`;
      const raw = options.newestFirst
        ? await redis.xrevrange(key, bound ?? '+', '-', 'COUNT', limit)
        : await redis.xrange(key, bound ?? '-', '+', 'COUNT', limit);
      return toEntries(raw);
    },

    length(stream) {
      return redis.xlen(prefix + stream);
    },

    async ensureGroup(stream, group) {
      try {
        await redis.xgroup('CREATE', prefix + stream, group, '0', 'MKSTREAM');
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('BUSYGROUP'))) throw error;
      }
    },

    async readGroup(stream, group, consumer, options) {
      assertOpen();
      const key = prefix + stream;
      const count = Math.max(1, Math.floor(options.count));
      const claimIdleMs = Math.max(0, Math.floor(options.claimIdleMs));
      // Monotonic: a wall clock stepped back must not hold the looks back.
      const now = performance.now();
      if (reclaimLooks.due(stream, group, now, claimIdleMs)) {
        // Entries trimmed while pending come back in the third element and leave the PEL.
        const claimed = (await redis.xautoclaim(
          key,
          group,
          consumer,
          claimIdleMs,
          '0-0',
          'COUNT',
          count,
        )) as [string, RawEntry[], string[]?];
        const reclaimed = toEntries(claimed[1]).map((entry) => ({
          ...entry,
          redelivered: true as const,
        }));
        // Claimed and trimmed-away entries both count toward COUNT: a full batch may have
        // left more behind.
        const filled = claimed[1].length + (claimed[2]?.length ?? 0) >= count;
        reclaimLooks.looked(stream, group, now, filled);
        if (reclaimed.length > 0) return reclaimed;
      }

      const read = ['GROUP', group, consumer, 'COUNT', count];
      const blockMs = Math.floor(options.blockMs);
      // BLOCK 0 would wait forever; no block at all is what 0 means here.
      if (blockMs <= 0) {
        return fromReadReply(await redis.call('XREADGROUP', [...read, 'STREAMS', key, '>']));
      }
      const connection = borrowBlocking();
      try {
        const reply = await connection.call('XREADGROUP', [
          ...read,
          'BLOCK',
          blockMs,
          'STREAMS',
          key,
          '>',
        ]);
        if (closed) retire(connection);
        else idle.push(connection);
        return fromReadReply(reply);
      } catch (error) {
        // Its state is unknown after a failure, so it is not reused.
        retire(connection);
        // close() disconnects blocked connections to end their wait: an empty read, as on timeout.
        if (closed) return [];
        throw error;
      }
    },

    async ack(stream, group, ids) {
      if (ids.length === 0) return;
      await redis.xack(prefix + stream, group, ...ids);
    },

    async backlog(stream, group) {
      // Read before every signal append: an outage is reported as such here too.
      const reply = await backlogScript(redis, prefix + stream, [group]).catch((error: unknown) => {
        throw asRedisFailure(error);
      });
      const [count, oldest] = reply as [number, string | null];
      return { count: Number(count), oldestMs: oldest ? Number(oldest.split('-')[0]) : null };
    },

    /**
     * Blocked readers resolve with [] at once; later appends and group reads reject. Only the
     * connections made here are disconnected: the shared one belongs to the caller.
     */
    async close() {
      closed = true;
      idle.length = 0;
      for (const connection of [...owned]) retire(connection);
    },
  };
}

function toEntries(raw: RawEntry[] | null | undefined): StreamEntry[] {
  const entries: StreamEntry[] = [];
  for (const [id, flat] of raw ?? []) {
    // Redis 6.2 reports entries deleted while pending with null fields; skip them.
    if (!flat) continue;
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    entries.push({ id, fields });
  }
  return entries;
}

function fromReadReply(reply: unknown): StreamEntry[] {
  const streams = reply as [key: string, entries: RawEntry[]][] | null;
  return toEntries(streams?.[0]?.[1]);
}
