import type { EventFeedPort, FeedEntry } from '../../ports/event-feed.js';

/** The embedded feed: one process, a ring of the newest `capacity` entries. */
export function createMemoryEventFeed(capacity = 1000): EventFeedPort {
  const entries: FeedEntry[] = [];
  const listeners = new Set<(entry: FeedEntry) => void>();
  let lastMs = 0;
  let sequence = 0;

  const nextId = () => {
    const now = Date.now();
    if (now > lastMs) {
      lastMs = now;
      sequence = 0;
    } else {
      sequence += 1;
    }
    return `${lastMs}-${sequence}`;
  };

  return {
    async publish(event) {
      const entry = { id: nextId(), event };
      entries.push(entry);
      if (entries.length > capacity) entries.splice(0, entries.length - capacity);
      for (const listener of [...listeners]) {
        try {
          listener(entry);
        } catch {
          // A failing subscriber owns its error handling; the others still hear the event.
        }
      }
      return entry.id;
    },
    async after(lastId, limit) {
      const start = lastId === undefined ? 0 : entries.findIndex((e) => e.id === lastId) + 1;
      return entries.slice(start, start + limit);
    },
    async subscribe(onEntry) {
      listeners.add(onEntry);
      return async () => {
        listeners.delete(onEntry);
      };
    },
  };
}
