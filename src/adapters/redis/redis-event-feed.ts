import type { Redis } from 'ioredis';
import type { BusPort } from '../../ports/bus.js';
import { type EventFeedPort, FEED_KEPT_EVENTS, type FeedEntry } from '../../ports/event-feed.js';
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
  capacity = FEED_KEPT_EVENTS,
): EventFeedPort {
  const key = `${prefix}feed:events`;
  // Messages carry an array of entries; the topic's name changed with the shape, so a replica
  // of an earlier release (one entry per message) does not misread them during a rollout.
  const topic = 'feed:entries';
  const entriesOf = (reply: [string, string[]][]): FeedEntry[] =>
    reply.map(([id, fields]) => ({ id, event: JSON.parse(fields[1] ?? '{}') }));

  // Events published in the same tick (a batch of converged alerts) share one pipelined
  // round trip for their entries and one message for their subscribers. Each event settles
  // with its own reply: an XADD is not idempotent, so a failed batch is never written again
  // item by item (the group commit's fallback), and a lost pub/sub message only delays
  // subscribers until they read the stream.
  const publishes = groupCommit<FeedEntry['event'], string | Error>(async (events) => {
    const pipeline = redis.pipeline();
    for (const event of events)
      pipeline.xadd(key, 'MAXLEN', '~', String(capacity), '*', 'event', JSON.stringify(event));
    let replies: [Error | null, unknown][];
    try {
      replies = (await pipeline.exec()) ?? [];
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      return events.map(() => failure);
    }
    const outcomes = events.map((_event, index): string | Error => {
      const [error, id] = replies[index] ?? [new Error('Redis gave no reply')];
      if (error) return error;
      return typeof id === 'string' ? id : new Error('Redis did not give the feed entry an id');
    });
    const entries = events.flatMap((event, index) => {
      const id = outcomes[index];
      return typeof id === 'string' ? [{ id, event }] : [];
    });
    if (entries.length > 0) {
      await bus.publish(topic, JSON.stringify(entries)).catch(() => undefined);
    }
    return outcomes;
  });

  return {
    async publish(event) {
      const outcome = await publishes.add(event);
      if (outcome instanceof Error) throw outcome;
      return outcome;
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
    async latest(count) {
      // The stream is trimmed only roughly (`MAXLEN ~`): its oldest entries may be more.
      return entriesOf(await redis.xrevrange(key, '+', '-', 'COUNT', count)).reverse();
    },
    subscribe(onEntry) {
      return bus.subscribe(topic, (message) => {
        const sent = JSON.parse(message) as FeedEntry | FeedEntry[];
        for (const entry of Array.isArray(sent) ? sent : [sent]) onEntry(entry);
      });
    },
  };
}
