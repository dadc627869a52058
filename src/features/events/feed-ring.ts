import {
  compareFeedIds,
  type EventFeedPort,
  FEED_KEPT_EVENTS,
  type FeedEntry,
} from '../../ports/event-feed.js';
import { withDeadline } from '../../support/deadline.js';

/**
 * The newest events this process heard, shared by every stream it serves (CONTRACT, Under
 * races, crashes and abuse): each stream keeps only its place in the ring, so what the
 * service holds for clients that read slowly grows with the ring, not with their number.
 * Positions count every event appended since the ring started; the ring holds those from
 * `start()` to `end()`, at most `capacity` of them.
 */
export interface FeedRing {
  /**
   * Resolves once the ring hears the feed live and holds its buffer: made once, by the
   * first stream; rejects (and the next stream tries again) when the feed does not answer
   * within `waitMs`.
   */
  ready(): Promise<void>;
  /** Position of the oldest event held. */
  start(): number;
  /** Position the next event will take. */
  end(): number;
  /** The event at `position`, which must lie in [start, end). */
  at(position: number): FeedEntry;
  /** Position of the first event after `lastId`; `start()` when `lastId` is older. */
  positionAfter(lastId: string): number;
  /** Calls `onAppended` (once per turn of the event loop at most) after events arrive. */
  listen(onAppended: () => void): () => void;
  close(): Promise<void>;
}

export function createFeedRing(
  feed: EventFeedPort,
  waitMs: number,
  capacity = FEED_KEPT_EVENTS,
): FeedRing {
  let entries: FeedEntry[] = [];
  /** Position of `entries[0]`. */
  let base = 0;
  const listeners = new Set<() => void>();
  let notifying = false;
  let starting: Promise<void> | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  let closed = false;

  const end = () => base + entries.length;
  const start = () => Math.max(base, end() - capacity);

  const notify = () => {
    if (notifying) return;
    notifying = true;
    // One wake-up per burst: a batch of events is published in one turn, and each stream
    // then writes what it can of it at once.
    queueMicrotask(() => {
      notifying = false;
      for (const listener of [...listeners]) listener();
    });
  };

  const append = (entry: FeedEntry) => {
    const newest = entries[entries.length - 1];
    // Each event once, in id order: one heard again, or late from another replica after a
    // newer one, is dropped, as a stream that had sent the newer one would drop it.
    if (newest && compareFeedIds(entry.id, newest.id) <= 0) return;
    entries.push(entry);
    // Trimmed once it holds twice the capacity, not at every event.
    if (entries.length >= 2 * capacity) {
      const dropped = entries.length - capacity;
      entries = entries.slice(dropped);
      base += dropped;
    }
    notify();
  };

  async function begin(): Promise<void> {
    let loading = true;
    const heard: FeedEntry[] = [];
    // Subscribed before the buffer is read, so nothing falls between the two.
    const subscribing = feed.subscribe((entry) => {
      if (closed) return;
      if (loading) heard.push(entry);
      else append(entry);
    });
    // CONTRACT, Under races, crashes and abuse: a Redis that hangs fails the stream within
    // 2 s; a subscription confirmed after that is ended at once.
    const stop = await withDeadline(
      subscribing,
      waitMs,
      () => new Error('event feed: no subscription in time'),
    ).catch((error: unknown) => {
      subscribing
        .then(
          (late) => late(),
          () => undefined,
        )
        .catch(() => undefined);
      throw error;
    });
    try {
      const buffered = await withDeadline(
        feed.latest(capacity),
        waitMs,
        () => new Error('event feed: buffer not read in time'),
      );
      for (const entry of buffered) append(entry);
    } catch (error) {
      await stop().catch(() => undefined);
      throw error;
    }
    loading = false;
    for (const entry of heard.splice(0)) append(entry);
    if (closed) await stop().catch(() => undefined);
    else unsubscribe = stop;
  }

  return {
    ready() {
      if (closed) return Promise.reject(new Error('event feed: closed'));
      if (!starting) {
        starting = begin();
        starting.catch(() => {
          starting = undefined;
        });
      }
      return starting;
    },
    start,
    end,
    at(position) {
      return entries[position - base] as FeedEntry;
    },
    positionAfter(lastId) {
      // Ids rise with positions: the first one after `lastId`, by halving.
      let low = start();
      let high = end();
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareFeedIds((entries[middle - base] as FeedEntry).id, lastId) <= 0) low = middle + 1;
        else high = middle;
      }
      return low;
    },
    listen(onAppended) {
      listeners.add(onAppended);
      return () => {
        listeners.delete(onAppended);
      };
    },
    async close() {
      closed = true;
      listeners.clear();
      await unsubscribe?.().catch(() => undefined);
      unsubscribe = undefined;
      base = end();
      entries = [];
    },
  };
}
