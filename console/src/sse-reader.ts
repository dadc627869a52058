/**
 * The server-sent events parser (HTML Standard, "Event stream interpretation"), on its own and
 * free of the DOM so that Node can test it against streams cut at any byte.
 */

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

const LINE_END = /\r\n|\r|\n/;

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
  // The last line ended with a CR that closed the chunk: an LF opening the next one is its pair.
  let afterCr = false;
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      let text = decoder.decode(value, { stream: true });
      if (text) {
        if (afterCr && text.startsWith('\n')) text = text.slice(1);
        afterCr = false;
      }
      buffer += text;
      let newline = buffer.search(LINE_END);
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        const width = buffer.startsWith('\r\n', newline) ? 2 : 1;
        const cr = width === 1 && buffer[newline] === '\r';
        buffer = buffer.slice(newline + width);
        afterCr = cr && buffer === '';
        newline = buffer.search(LINE_END);
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
