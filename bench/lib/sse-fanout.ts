import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/**
 * SSE fan-out measurement: many plain `node:http` clients follow one analysis task's stream,
 * and each live event's `published_at` (stamped by the service as it publishes) is compared
 * with the time its chunk arrived here. Replayed events carry no `published_at` and are
 * checked for completeness only.
 */

const wallMs = () => performance.timeOrigin + performance.now();

/** The opinion every expert gives; the content does not matter here, only its timing. */
const COMPLETION = JSON.stringify({
  choices: [
    {
      message: {
        role: 'assistant',
        content: JSON.stringify({
          recommended_action: 'restart_workload',
          recommended_kubectl: 'kubectl rollout restart deployment/cart -n shop',
          risk_level: 'medium',
          reasoning: 'bench',
          confidence: 0.8,
        }),
      },
    },
  ],
  usage: { prompt_tokens: 100, completion_tokens: 50 },
});

export interface PacedModel {
  url: string;
  /** Calls wait from now on until `release`. */
  hold(): void;
  /** Answers the waiting calls, and later ones, one every `paceMs`. */
  release(): void;
  close(): Promise<void>;
}

/** An OpenAI-compatible stand-in, so experts finish at known times after the clients connect. */
export async function startPacedModel(paceMs: number): Promise<PacedModel> {
  const waiting: http.ServerResponse[] = [];
  let released = false;
  let pump: NodeJS.Timeout | undefined;
  const answer = (res: http.ServerResponse) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(COMPLETION);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => waiting.push(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    hold() {
      released = false;
      clearInterval(pump);
    },
    release() {
      released = true;
      pump = setInterval(() => {
        const next = waiting.shift();
        if (next && released) answer(next);
      }, paceMs);
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(pump);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ClientOutcome {
  seqs: number[];
  lastType: string | undefined;
  /** publish → receipt, ms, of every live event */
  delaysMs: number[];
  /** the same, by the event's number within its task */
  delaysBySeq: Map<number, number[]>;
  error?: string;
}

interface Client {
  ready: Promise<void>;
  done: Promise<ClientOutcome>;
  destroy(): void;
}

/**
 * One SSE client on a raw TCP socket: `ready` once the status event arrived, `done` when the
 * server closes. A raw socket, not `http.get`, because the clients share one process: with
 * Node's HTTP parser and streams, reading 500 sockets costs more than the service spends
 * writing them, and the measurement would be of the load generator.
 */
function openClient(url: URL): Client {
  const outcome: ClientOutcome = {
    seqs: [],
    lastType: undefined,
    delaysMs: [],
    delaysBySeq: new Map(),
  };
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const socket = net.connect(Number(url.port), url.hostname);
  const done = new Promise<ClientOutcome>((resolve) => {
    let buffer = '';
    let headers = true;
    socket.setEncoding('utf8');
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n` +
        'Last-Event-ID: 0\r\nConnection: close\r\n\r\n',
    );
    socket.on('data', (chunk: string) => {
      const at = wallMs();
      buffer += chunk;
      if (headers) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!buffer.startsWith('HTTP/1.1 200')) {
          outcome.error = buffer.slice(0, buffer.indexOf('\r\n'));
          markReady();
          socket.destroy();
          return;
        }
        headers = false;
        buffer = buffer.slice(end + 4);
      }
      // Each write of the service is one HTTP chunk holding whole frames, so the chunk-size
      // lines between frames never split one: frames are found by their own shape.
      const frames = /id: (\d+)\ndata: ([^\n]*)\n\n/g;
      let consumed = 0;
      for (let match = frames.exec(buffer); match; match = frames.exec(buffer)) {
        consumed = frames.lastIndex;
        const data = match[2]!;
        const type = /"type":"(\w+)"/.exec(data)?.[1];
        if (type === 'status') continue;
        const seq = Number(match[1]);
        // Ready once the replay (Last-Event-ID: 0) brought the task's first event.
        if (seq === 1) markReady();
        outcome.seqs.push(seq);
        outcome.lastType = type;
        const published = /"published_at":(\d+)/.exec(data)?.[1];
        if (!published) continue;
        const delay = at - Number(published);
        outcome.delaysMs.push(delay);
        const bySeq = outcome.delaysBySeq.get(seq) ?? [];
        bySeq.push(delay);
        outcome.delaysBySeq.set(seq, bySeq);
      }
      buffer = buffer.slice(consumed);
      // The last chunk of a chunked body: the stream ended. The socket stays open (keep-alive)
      // until the round is over, so closing 500 sockets does not delay the last deliveries.
      if (/(^|\r\n)0\r\n\r\n/.test(buffer)) resolve(outcome);
    });
    socket.on('close', () => resolve(outcome));
    socket.on('error', (error) => {
      outcome.error = error.message;
      markReady();
    });
  });
  return { ready, done, destroy: () => socket.destroy() };
}

/** Pause between the last stream being ready and the first live event. */
const SETTLE_MS = 250;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function mergeBySeq(maps: Map<number, number[]>[]): Map<number, number[]> {
  const merged = new Map<number, number[]>();
  for (const map of maps) {
    for (const [seq, delays] of map) merged.set(seq, [...(merged.get(seq) ?? []), ...delays]);
  }
  return merged;
}

export interface RoundResult {
  clients: number;
  /** Events of the task (the last one's number). */
  events: number;
  /** Clients that received every event, in order, ending with `completed`. */
  complete: number;
  errors: number;
  firstError?: string;
  delaysMs: number[];
  delaysBySeq: Map<number, number[]>;
  /** From releasing the experts until the last client's stream ended. */
  durationMs: number;
  /** From opening the streams until every one had its status and replayed first event. */
  connectMs: number;
}

/** One task followed by `clients` streams from start to end. */
export async function fanOutRound(
  baseUrl: string,
  model: PacedModel,
  clients: number,
): Promise<RoundResult> {
  model.hold();
  const created = await fetch(`${baseUrl}/api/v1/agents/analyze`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ severity: 'P2', affected_services: ['cart'] }),
  });
  if (created.status !== 200) throw new Error(`analyze answered ${created.status}`);
  const { task_id: taskId } = (await created.json()) as { task_id: string };
  const url = new URL(`${baseUrl}/api/v1/agents/stream/${taskId}`);
  const open = Array.from({ length: clients }, () => openClient(url));
  try {
    const connectStart = wallMs();
    await within(Promise.all(open.map((c) => c.ready)), 30_000, 'clients connecting');
    const connectMs = wallMs() - connectStart;
    // Measured: the fan-out of live events to established streams, not the connection storm.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const releasedAt = wallMs();
    model.release();
    const outcomes = await within(Promise.all(open.map((c) => c.done)), 60_000, 'streams ending');
    const durationMs = wallMs() - releasedAt;
    const events = Math.max(0, ...outcomes.flatMap((o) => o.seqs.filter(Number.isFinite)));
    const whole = (o: ClientOutcome) =>
      o.lastType === 'completed' && o.seqs.length === events && o.seqs.every((s, i) => s === i + 1);
    const failed = outcomes.find((o) => o.error);
    return {
      clients,
      events,
      complete: outcomes.filter(whole).length,
      errors: outcomes.filter((o) => o.error).length,
      firstError: failed?.error,
      delaysMs: outcomes.flatMap((o) => o.delaysMs),
      delaysBySeq: mergeBySeq(outcomes.map((o) => o.delaysBySeq)),
      durationMs,
      connectMs,
    };
  } finally {
    for (const client of open) client.destroy();
  }
}
