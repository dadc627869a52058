import { authHeaders, type FeedEvent, noteAccess, Watched } from './api';

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Server-sent events read with fetch, so the request can carry `Authorization` (an
 * EventSource cannot). Calls `onMessage` per event; resolves when the stream ends.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  onMessage: (message: SseMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event = 'message';
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.search(/\r\n|\r|\n/);
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
        buffer = buffer.slice(newline + width);
        newline = buffer.search(/\r\n|\r|\n/);
        if (line === '') {
          if (data.length > 0) onMessage({ id, event, data: data.join('\n') });
          data = [];
          event = 'message';
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let content = colon < 0 ? '' : line.slice(colon + 1);
        if (content.startsWith(' ')) content = content.slice(1);
        if (field === 'data') data.push(content);
        else if (field === 'id' && !content.includes('\0')) id = content;
        else if (field === 'event') event = content;
      }
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

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
          let detail = '';
          try {
            detail = ((await response.json()) as { detail?: string }).detail ?? '';
          } catch {
            // not JSON
          }
          noteAccess(response.status, detail);
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
const feedListeners = new Set<(event: FeedEvent) => void>();
let feed: { stop(): void } | undefined;

export function onFeedEvent(listener: (event: FeedEvent) => void): () => void {
  feedListeners.add(listener);
  return () => feedListeners.delete(listener);
}

export function startFeed() {
  feed?.stop();
  feed = openStream({
    url: '/api/v1/events',
    onState: (state) => feedState.set(state),
    onMessage: (message) => {
      let event: FeedEvent;
      try {
        event = JSON.parse(message.data) as FeedEvent;
      } catch {
        return;
      }
      for (const listener of [...feedListeners]) listener(event);
    },
  });
}
