import { describe, expect, it } from 'vitest';
import { createMemoryEventFeed } from '../../src/adapters/memory/memory-event-feed.js';

/** The embedded feed keeps its newest `capacity` events, however many were published. */
describe('the embedded event feed', () => {
  async function published(feed: ReturnType<typeof createMemoryEventFeed>, count: number) {
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      ids.push(await feed.publish({ type: 'signal.handled', at: '', entry_id: String(n) }));
    }
    return ids;
  }
  const numbers = (entries: Array<{ event: Record<string, unknown> }>) =>
    entries.map((entry) => Number(entry.event.entry_id));

  it.each([999, 1000, 1001, 1999, 2000, 2500])(
    'after %i events holds the newest 1000, in order',
    async (count) => {
      const feed = createMemoryEventFeed(1000);
      const ids = await published(feed, count);
      const kept = Math.min(count, 1000);
      const all = await feed.after(undefined, 5000);
      expect(numbers(all)).toEqual(Array.from({ length: kept }, (_, i) => count - kept + i));
      // Resuming after a kept event gives what followed it.
      expect(numbers(await feed.after(ids[count - 10], 100))).toEqual(
        Array.from({ length: 9 }, (_, i) => count - 9 + i),
      );
      // Resuming after an event no longer kept starts at the oldest kept one.
      if (count > 1000) {
        expect(numbers(await feed.after(ids[0], 3))).toEqual([
          count - 1000,
          count - 999,
          count - 998,
        ]);
      }
    },
  );
});
