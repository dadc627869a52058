import { type EventFeedPort, FEED_KEPT_EVENTS, type FeedEntry } from '../../ports/event-feed.js';

/** The embedded feed: one process, a ring of the newest `capacity` entries. */
export function createMemoryEventFeed(capacity = FEED_KEPT_EVENTS): EventFeedPort {
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
      // Trimmed once it holds twice the capacity, not at every event: a shift of the whole
      // ring per event showed in the signal consumer's profile.
      if (entries.length >= 2 * capacity) entries.splice(0, entries.length - capacity);
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
      const oldest = Math.max(0, entries.length - capacity);
      const found = lastId === undefined ? -1 : entries.findIndex((e) => e.id === lastId);
      const start = found < oldest ? oldest : found + 1;
      return entries.slice(start, start + limit);
    },
    async latest(count) {
      return entries.slice(Math.max(0, entries.length - Math.min(count, capacity)));
    },
    async subscribe(onEntry) {
      listeners.add(onEntry);
      return async () => {
        listeners.delete(onEntry);
      };
    },
  };
}
