import type { BusPort } from '../../ports/bus.js';

type Handler = (message: string) => void;

/**
 * In-process pub/sub for a single replica. Delivery is synchronous, so `publish` resolves
 * after every current subscriber has seen the message.
 */
export function createMemoryBus(): BusPort {
  const topics = new Map<string, Set<Handler>>();
  let closed = false;

  function assertOpen() {
    if (closed) throw new Error('Bus is closed');
  }

  return {
    async publish(topic, message) {
      assertOpen();
      // A copy, so handlers that (un)subscribe while being called do not disturb this round.
      for (const handler of [...(topics.get(topic) ?? [])]) {
        try {
          handler(message);
        } catch {
          // One failing subscriber must not starve the others; it owns its error handling.
        }
      }
    },

    async subscribe(topic, onMessage) {
      assertOpen();
      // Wrapped so the same function subscribed twice gets two independent subscriptions.
      const handler: Handler = (message) => onMessage(message);
      let handlers = topics.get(topic);
      if (!handlers) {
        handlers = new Set();
        topics.set(topic, handlers);
      }
      handlers.add(handler);
      return async () => {
        const current = topics.get(topic);
        if (!current?.delete(handler)) return;
        if (current.size === 0) topics.delete(topic);
      };
    },

    async close() {
      closed = true;
      topics.clear();
    },
  };
}
