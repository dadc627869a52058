import type { Redis } from 'ioredis';
import type { BusPort } from '../../ports/bus.js';
import { waitingConnection } from './redis-connections.js';

type Handler = (message: string) => void;

interface Channel {
  handlers: Set<Handler>;
  /** Settles when Redis has confirmed SUBSCRIBE; later local handlers wait on it too. */
  live: Promise<unknown>;
}

/**
 * Redis pub/sub, so every replica hears every publish. One lazily made subscriber connection
 * serves all local subscriptions; a channel is subscribed while at least one local handler
 * wants it. Commands on that connection run in order, so an UNSUBSCRIBE followed by a new
 * SUBSCRIBE of the same channel always ends subscribed.
 */
export function createRedisBus(redis: Redis, prefix: string): BusPort {
  const channels = new Map<string, Channel>();
  let subscriber: Redis | undefined;
  let closed = false;

  function subscriberConnection(): Redis {
    if (!subscriber) {
      subscriber = waitingConnection(redis);
      subscriber.on('message', (channel: string, message: string) => {
        const handlers = channels.get(channel)?.handlers;
        if (!handlers) return;
        for (const handler of [...handlers]) {
          try {
            handler(message);
          } catch {
            // One failing subscriber must not starve the others; it owns its error handling.
          }
        }
      });
    }
    return subscriber;
  }

  function assertOpen() {
    if (closed) throw new Error('Bus is closed');
  }

  return {
    async publish(topic, message) {
      assertOpen();
      await redis.publish(prefix + topic, message);
    },

    async subscribe(topic, onMessage) {
      assertOpen();
      const name = prefix + topic;
      const connection = subscriberConnection();
      // Wrapped so the same function subscribed twice gets two independent subscriptions.
      const handler: Handler = (message) => onMessage(message);
      let channel = channels.get(name);
      if (!channel) {
        channel = { handlers: new Set(), live: connection.subscribe(name) };
        channels.set(name, channel);
      }
      channel.handlers.add(handler);
      try {
        await channel.live;
      } catch (error) {
        channel.handlers.delete(handler);
        if (channel.handlers.size === 0 && channels.get(name) === channel) channels.delete(name);
        throw error;
      }
      let ended = false;
      return async () => {
        if (ended) return;
        ended = true;
        const current = channels.get(name);
        if (!current?.handlers.delete(handler) || current.handlers.size > 0) return;
        channels.delete(name);
        if (!closed) await connection.unsubscribe(name);
      };
    },

    async close() {
      closed = true;
      channels.clear();
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
}
