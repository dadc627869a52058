/**
 * The service's own events as a feed (CONTRACT, Operator console): `incident.created`,
 * `approval.updated`, … each a JSON object with `type`, `at` and the record's id fields.
 */
export interface FeedEvent {
  type: string;
  /** ISO 8601 time of the change. */
  at: string;
  [field: string]: unknown;
}

/**
 * CONTRACT, Under races, crashes and abuse: the feed keeps the last 10,000 events, a client
 * resumes with `Last-Event-ID` from any of them, and a stream is ended only when its client
 * is more than this many events behind.
 */
export const FEED_KEPT_EVENTS = 10_000;

/** An event with its feed id: `<milliseconds>-<sequence>`, rising in feed order. */
export interface FeedEntry {
  id: string;
  event: FeedEvent;
}

/**
 * A bounded, ordered buffer of recent events with live delivery, shared by every replica
 * (in-process when embedded, Redis when distributed). Live delivery is best effort; a
 * client that missed some reads them back with `after`.
 */
export interface EventFeedPort {
  /** Appends after the change committed; resolves with the entry's id. */
  publish(event: FeedEvent): Promise<string>;
  /**
   * Entries after `lastId`, oldest first, at most `limit`; every buffered entry when
   * `lastId` is undefined or older than the buffer.
   */
  after(lastId: string | undefined, limit: number): Promise<FeedEntry[]>;
  /** The newest `count` buffered entries, oldest first. */
  latest(count: number): Promise<FeedEntry[]>;
  /** Resolves once live; the returned function ends the subscription. */
  subscribe(onEntry: (entry: FeedEntry) => void): Promise<() => Promise<void>>;
}

/** Orders two feed ids; malformed ids sort first. */
export function compareFeedIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}
