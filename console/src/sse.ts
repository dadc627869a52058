import { authHeaders, errorCodeOf, noteAccess, Watched } from './api';
import type { ErrorCode, FeedEvent } from './api-types';
import { slicedQueue } from './feed-queue';
import { readSse, type SseMessage } from './sse-reader';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'stopped';

export interface StreamOptions {
  url: string;
  onMessage: (message: SseMessage) => void;
  onState?: (state: StreamState) => void;
  /** True to stop for good (say, a task that finished). */
  done?: () => boolean;
}

/**
 * A resumable stream: reconnects after a drop with `Last-Event-ID`, waiting longer after
 * each failure (1 s up to 10 s). Stops on 401/403 (access says why), 204, 404, or `stop()`.
 */
export function openStream(options: StreamOptions): { stop(): void } {
  const controller = new AbortController();
  let lastEventId: string | undefined;
  let failures = 0;
  const setState = (state: StreamState) => options.onState?.(state);

  const run = async () => {
    while (!controller.signal.aborted) {
      setState(failures === 0 ? 'connecting' : 'reconnecting');
      try {
        const response = await fetch(options.url, {
          headers: {
            accept: 'text/event-stream',
            ...authHeaders(),
            ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
          },
          cache: 'no-store',
          signal: controller.signal,
        });
        if (response.status === 204 || response.status === 404) {
          setState('stopped');
          return;
        }
        if (!response.ok || !response.body) {
          let code: ErrorCode | undefined;
          try {
            code = errorCodeOf(await response.json());
          } catch {
            // not JSON
          }
          noteAccess(response.status, code);
          if (response.status === 401 || response.status === 403) {
            setState('stopped');
            return;
          }
          throw new Error(`stream answered ${response.status}`);
        }
        setState('live');
        failures = 0;
        await readSse(
          response.body,
          (message) => {
            if (message.id !== undefined) lastEventId = message.id;
            options.onMessage(message);
          },
          controller.signal,
        );
      } catch {
        // dropped: reconnect below
      }
      if (controller.signal.aborted || options.done?.()) break;
      failures += 1;
      setState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 1000 * failures)));
    }
    setState('stopped');
  };
  void run();
  return { stop: () => controller.abort() };
}

/** The service's own event feed, one connection for the whole console. */
export const feedState = new Watched<StreamState>('connecting');
/**
 * Counts the times the feed came back after a drop. The resume replays at most the service's
 * buffer (about 1,000 events): views that follow the feed read their lists again instead.
 */
export const feedResumes = new Watched(0);
const feedListeners = new Set<(event: FeedEvent) => void>();
let feed: { stop(): void } | undefined;

export function onFeedEvent(listener: (event: FeedEvent) => void): () => void {
  feedListeners.add(listener);
  return () => feedListeners.delete(listener);
}

/** Each event reaches every listener, in order, a few milliseconds of them per task. */
const events = slicedQueue<string>((data) => {
  let event: FeedEvent;
  try {
    event = JSON.parse(data) as FeedEvent;
  } catch {
    return;
  }
  for (const listener of [...feedListeners]) listener(event);
});

export function startFeed() {
  feed?.stop();
  feed = openStream({
    url: '/api/v1/events',
    onState: (state) => {
      if (state === 'live' && feedState.value === 'reconnecting') {
        feedResumes.set(feedResumes.value + 1);
      }
      feedState.set(state);
    },
    onMessage: (message) => events.push(message.data),
  });
}
