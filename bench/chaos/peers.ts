import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long a fault lasts. Any limit given ends it when it runs out; none given, it lasts until
 * the mode changes. `perKey` fails only the first n requests of each key (an approval, an issue).
 */
export interface FaultLimit {
  forMs?: number;
  count?: number;
  perKey?: number;
}

export type PeerMode =
  | { kind: 'ok' }
  | { kind: 'slow'; ms: number }
  /** Every request waits, unanswered, until the mode changes; then it is answered as `ok`. */
  | { kind: 'hold' }
  | ({ kind: 'fail500' } & FaultLimit)
  | ({ kind: 'flood429'; retryAfterSeconds: number } & FaultLimit);

export const ok = (): PeerMode => ({ kind: 'ok' });
export const slow = (ms: number): PeerMode => ({ kind: 'slow', ms });
export const hold = (): PeerMode => ({ kind: 'hold' });
export const fail500 = (limit: FaultLimit = {}): PeerMode => ({ kind: 'fail500', ...limit });
export const flood429 = (retryAfterSeconds: number, limit: FaultLimit = {}): PeerMode => ({
  kind: 'flood429',
  retryAfterSeconds,
  ...limit,
});

/** One request the peer received, and what it answered. */
export interface PeerRequest {
  /** Date.now() on arrival. */
  at: number;
  /** Date.now() when the answer went out. */
  answeredAt: number;
  path: string;
  /** The Bot API method (`sendMessage`, …) or `comment` for a tracker comment. */
  method: string;
  /** What `perKey` counts by: the approval of a card, the message of an edit, the text of a
   * message without buttons, the issue of a comment. */
  key: string;
  body: Record<string, unknown>;
  status: number;
  /**
   * Whether the sender hung up while the request was held (mode `hold`): its process was
   * killed mid-flight. The request still counts as received, as a real API that had taken it
   * would have acted on it, but its sender never learnt so.
   */
  cutOff: boolean;
}

/** A request held unanswered (mode `hold`): what it is, and its sender's local port. */
export interface HeldRequest {
  method: string;
  key: string;
  remotePort: number | undefined;
}

/**
 * A fault-injecting stand-in on 127.0.0.1 for the Telegram Bot API (`POST /bot<token>/<method>`)
 * and the tracker's comment API (`POST /api/0/issues/<id>/comments/`). Written apart from the
 * test helpers, which import vitest.
 */
export class FaultyPeer {
  readonly requests: PeerRequest[] = [];
  private mode: PeerMode = ok();
  private modeSince = Date.now();
  private faultsAnswered = 0;
  private faultsPerKey = new Map<string, number>();
  private nextMessageId = 1;
  private gate: { opened: Promise<void>; open: () => void } | undefined;
  private readonly holding = new Set<HeldRequest>();
  private server = http.createServer((request, response) => {
    void this.answer(request, response);
  });

  /** Starts listening on a free loopback port; resolves with the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  setMode(mode: PeerMode): void {
    this.gate?.open();
    this.gate = undefined;
    if (mode.kind === 'hold') {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      this.gate = { opened, open };
    }
    this.mode = mode;
    this.modeSince = Date.now();
    this.faultsAnswered = 0;
    this.faultsPerKey.clear();
  }

  /** The requests held now (mode `hold`), in no order. */
  held(): HeldRequest[] {
    return [...this.holding];
  }

  /** Requests of one method (and, when given, one key), in arrival order. */
  of(method: string, key?: string): PeerRequest[] {
    return this.requests.filter((r) => r.method === method && (key === undefined || r.key === key));
  }

  async close(): Promise<void> {
    this.gate?.open();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: http.IncomingMessage, response: http.ServerResponse) {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // an unreadable body is recorded as empty
    }
    const path = request.url ?? '/';
    const telegram = /^\/bot[^/]+\/(\w+)$/.exec(path);
    const comment = /^\/api\/0\/issues\/([^/]+)\/comments\/$/.exec(path);
    const method = telegram ? telegram[1]! : comment ? 'comment' : 'unknown';
    const key = comment ? decodeURIComponent(comment[1]!) : keyOf(method, body);

    let cutOff = false;
    if (this.mode.kind === 'hold' && this.gate) {
      // Received as a real API would have: answered, and recorded, once the hold ends.
      const held = { method, key, remotePort: request.socket.remotePort };
      this.holding.add(held);
      // The connection closing with the answer not yet written: the sender died (or gave up).
      const hungUp = () => {
        if (!response.writableFinished && this.holding.has(held)) cutOff = true;
      };
      response.once('close', hungUp);
      await this.gate.opened;
      this.holding.delete(held);
      response.off('close', hungUp);
    }
    const mode = this.mode;
    if (mode.kind === 'slow') await sleep(mode.ms);
    let status = 200;
    let answer: unknown;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (request.method !== 'POST' || (!telegram && !comment)) {
      status = 404;
      answer = { ok: false, error_code: 404, description: 'Not Found' };
    } else if (mode.kind === 'fail500' && this.faulting(mode, key)) {
      status = 500;
      answer = { ok: false, error_code: 500, description: 'Internal Server Error' };
    } else if (mode.kind === 'flood429' && this.faulting(mode, key)) {
      const seconds = mode.retryAfterSeconds;
      status = 429;
      headers['retry-after'] = String(seconds);
      answer = {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${seconds}`,
        parameters: { retry_after: seconds },
      };
    } else if (comment) {
      status = 201;
      answer = { id: String(this.requests.length + 1) };
    } else if (method === 'sendMessage') {
      const messageId = this.nextMessageId++;
      answer = {
        ok: true,
        result: {
          message_id: messageId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: body.chat_id },
          text: body.text,
        },
      };
    } else {
      answer = { ok: true, result: true };
    }
    this.requests.push({ at, answeredAt: Date.now(), path, method, key, body, status, cutOff });
    response.writeHead(status, headers).end(JSON.stringify(answer));
  }

  /** Whether this request gets the fault; counts it when it does. */
  private faulting(limit: FaultLimit, key: string): boolean {
    if (limit.forMs !== undefined && Date.now() - this.modeSince >= limit.forMs) return false;
    if (limit.count !== undefined && this.faultsAnswered >= limit.count) return false;
    const ofKey = this.faultsPerKey.get(key) ?? 0;
    if (limit.perKey !== undefined && ofKey >= limit.perKey) return false;
    this.faultsAnswered += 1;
    this.faultsPerKey.set(key, ofKey + 1);
    return true;
  }
}

/** The approval of a card (from its buttons' `<action>:<approval_id>:<nonce>`), else the message. */
function keyOf(method: string, body: Record<string, unknown>): string {
  const data = callbackDataOf(body)[0];
  if (data) return data.slice(data.indexOf(':') + 1, data.lastIndexOf(':'));
  if (body.message_id !== undefined) return `message-${String(body.message_id)}`;
  // A message without buttons (a repair result) by its text: the same text twice is a repeat.
  return typeof body.text === 'string' ? `text:${body.text}` : method;
}

/** Every button's `callback_data` in a sendMessage or editMessageText body. */
export function callbackDataOf(body: Record<string, unknown>): string[] {
  const markup = body.reply_markup as { inline_keyboard?: { callback_data?: string }[][] };
  return (markup?.inline_keyboard ?? [])
    .flat()
    .map((button) => button.callback_data)
    .filter((data): data is string => typeof data === 'string');
}
