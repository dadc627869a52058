import type { Redis } from 'ioredis';
import type { BusPort } from '../../ports/bus.js';
import type { EventFeedPort, FeedEntry } from '../../ports/event-feed.js';
import { groupCommit } from '../../support/group-commit.js';

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

  // Events published in the same tick (a batch of converged alerts) share one pipelined
  // round trip for their entries and one message for their subscribers.
  const publishes = groupCommit<FeedEntry['event'], string>(async (events) => {
    const pipeline = redis.pipeline();
    for (const event of events)
      pipeline.xadd(key, 'MAXLEN', '~', String(capacity), '*', 'event', JSON.stringify(event));
    const replies = (await pipeline.exec()) ?? [];
    const entries = events.map((event, index) => {
      const [error, id] = replies[index] ?? [new Error('Redis gave no reply')];
      if (error) throw error;
      if (typeof id !== 'string') throw new Error('Redis did not give the feed entry an id');
      return { id, event };
    });
    await bus.publish(topic, JSON.stringify(entries));
    return entries.map((entry) => entry.id);
  });

  return {
    publish: (event) => publishes.add(event),
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
      return bus.subscribe(topic, (message) => {
        const sent = JSON.parse(message) as FeedEntry | FeedEntry[];
        for (const entry of Array.isArray(sent) ? sent : [sent]) onEntry(entry);
      });
    },
  };
}
