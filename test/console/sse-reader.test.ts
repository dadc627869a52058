import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from '../../console/src/sse-reader.js';

/** The console's own server-sent events parser, fed streams as fetch hands them over. */

const encoder = new TextEncoder();

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function read(chunks: Uint8Array[]): Promise<SseMessage[]> {
  const messages: SseMessage[] = [];
  await readSse(
    streamOf(chunks),
    (message) => messages.push(message),
    new AbortController().signal,
  );
  return messages;
}

const whole = (text: string) => read([encoder.encode(text)]);

/** The same bytes cut after every byte: a line end or a character may straddle two chunks. */
function byteByByte(text: string): Promise<SseMessage[]> {
  return read([...encoder.encode(text)].map((byte) => Uint8Array.of(byte)));
}

describe('readSse', () => {
  it('reads id, event type and data, resetting the type after each event', async () => {
    const text = 'id: 7\nevent: status\ndata: {"a":1}\n\ndata: next\n\n';
    expect(await whole(text)).toEqual([
      { id: '7', event: 'status', data: '{"a":1}' },
      { id: '7', event: 'message', data: 'next' },
    ]);
  });

  it('joins data lines with a newline', async () => {
    expect(await whole('data: one\ndata: two\n\n')).toEqual([
      { id: undefined, event: 'message', data: 'one\ntwo' },
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('takes %s line ends, whole or cut at every byte', async (_name, end) => {
    const text = `id: 1${end}data: a${end}${end}: heartbeat${end}id: 2${end}data: é€😀${end}${end}`;
    const expected = [
      { id: '1', event: 'message', data: 'a' },
      { id: '2', event: 'message', data: 'é€😀' },
    ];
    expect(await whole(text)).toEqual(expected);
    expect(await byteByByte(text)).toEqual(expected);
  });

  it('keeps a CRLF cut between two chunks one line end, not a blank line', async () => {
    const chunks = ['data: a\r', '\ndata: b\r', '\n\r', '\n'].map((chunk) => encoder.encode(chunk));
    expect(await read(chunks)).toEqual([{ id: undefined, event: 'message', data: 'a\nb' }]);
  });

  it('skips comments, unknown fields and events without data', async () => {
    const text = ': comment\nretry: 1000\nfoo: bar\n\nevent: ping\n\ndata: x\n\n';
    expect(await whole(text)).toEqual([{ id: undefined, event: 'message', data: 'x' }]);
  });

  it('strips one space after the colon, and reads a field without a colon as empty', async () => {
    expect(await whole('data:tight\ndata:  two spaces\ndata\n\n')).toEqual([
      { id: undefined, event: 'message', data: 'tight\n two spaces\n' },
    ]);
  });

  it('keeps the last id for the events after it, and ignores an id holding NUL', async () => {
    const text = 'id: 5\ndata: a\n\nid: 6\u0000\ndata: b\n\n';
    expect((await whole(text)).map((message) => message.id)).toEqual(['5', '5']);
  });

  it('drops an event the stream ended before finishing', async () => {
    expect(await whole('data: done\n\ndata: cut')).toEqual([
      { id: undefined, event: 'message', data: 'done' },
    ]);
  });

  it('reads a chunk of 20,000 events (a storm, or a replay) in well under a second', async () => {
    const text = Array.from({ length: 20_000 }, (_, i) => `id: ${i}\ndata: {"n":${i}}\n\n`).join(
      '',
    );
    const started = performance.now();
    const messages = await whole(text);
    expect(messages).toHaveLength(20_000);
    expect(messages.at(-1)).toEqual({ id: '19999', event: 'message', data: '{"n":19999}' });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('stops reading and resolves when its signal aborts', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: first\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const messages: string[] = [];
    const reading = readSse(
      body,
      (message) => {
        messages.push(message.data);
        controller.abort();
      },
      controller.signal,
    );
    await expect(reading).resolves.toBeUndefined();
    expect(messages).toEqual(['first']);
    expect(cancelled).toBe(true);
  });
});
