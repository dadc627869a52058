import type { Redis } from 'ioredis';
import type { BusPort } from '../../ports/bus.js';
import type { EventFeedPort, FeedEntry } from '../../ports/event-feed.js';

/**
 * The distributed feed: a Redis stream capped at about `capacity` entries holds the buffer
 * and gives every entry its id, the same on every replica; pub/sub carries it live, so a
 * browser connected to one replica sees what another did.
 */
export function createRedisEventFeed(
  redis: Redis,
  bus: BusPort,
  prefix: string,
  capacity = 1000,
): EventFeedPort {
  const key = `${prefix}feed:events`;
  const topic = 'feed:events';
  const entriesOf = (reply: [string, string[]][]): FeedEntry[] =>
    reply.map(([id, fields]) => ({ id, event: JSON.parse(fields[1] ?? '{}') }));

  return {
    async publish(event) {
      const data = JSON.stringify(event);
      const id = await redis.xadd(key, 'MAXLEN', '~', String(capacity), '*', 'event', data);
      if (!id) throw new Error('Redis did not give the feed entry an id');
      await bus.publish(topic, JSON.stringify({ id, event }));
      return id;
    },
    async after(lastId, limit) {
      const start = lastId === undefined ? '-' : `(${lastId}`;
      try {
        return entriesOf(await redis.xrange(key, start, '+', 'COUNT', limit));
      } catch {
        // An id Redis cannot read (not one it gave): replay the whole buffer.
        return entriesOf(await redis.xrange(key, '-', '+', 'COUNT', limit));
      }
    },
    subscribe(onEntry) {
      return bus.subscribe(topic, (message) => onEntry(JSON.parse(message) as FeedEntry));
    },
  };
}
