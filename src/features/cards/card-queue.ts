import type { FastifyBaseLogger } from 'fastify';
import { type ChatPort, type InlineKeyboard, isRateLimited } from '../../ports/chat.js';
import type { CardDecision } from './card-records.js';
import type { ApprovalCardParams, CardPushResult } from './card-types.js';

/** A card whose row is written (its nonce is known) and whose message is still to be sent. */
export interface OutgoingCard {
  params: ApprovalCardParams;
  nonce: string;
  text: string;
  /** Null for a card sent without buttons: its approval was decided before it went out. */
  keyboard: InlineKeyboard | null;
  /** The decision its text already shows, so its sender does not edit the same line in again. */
  shown?: CardDecision | null;
}

/** What `push` answers for a card that waits for the chat: it is sent, or summed up, later. */
export const CARD_WAITS_REASON = 'the chat asked to wait (429): the card is sent when it can be';

/** The Bot API's smallest `retry_after` is a second; a 429 naming none waits that long too. */
const MIN_RETRY_MS = 1000;

export interface CardQueueDeps {
  chat: Pick<ChatPort, 'rateLimitedUntil' | 'lastContact'>;
  /** CHAT_DIGEST_AFTER */
  digestAfter: number;
  log: FastifyBaseLogger;
  /** Sends one card now; a refusal by the flood control rejects with `isRateLimited`. */
  sendCard(card: OutgoingCard): Promise<CardPushResult>;
  /** Sends one digest for these cards; a refusal by the flood control rejects the same way. */
  sendDigest(cards: OutgoingCard[]): Promise<void>;
}

interface Entry {
  card: OutgoingCard;
  /** Settled once: with the push's result, with CARD_WAITS_REASON, or with the chat's error. */
  resolve(result: CardPushResult): void;
  reject(error: unknown): void;
  settled: boolean;
}

function settle(entry: Entry, outcome: { result: CardPushResult } | { error: unknown }) {
  if (entry.settled) return;
  entry.settled = true;
  if ('result' in outcome) entry.resolve(outcome.result);
  else entry.reject(outcome.error);
}

const WAITS: { result: CardPushResult } = { result: { sent: false, reason: CARD_WAITS_REASON } };

/**
 * The approval cards on their way to the chat, one queue per process (CONTRACT, Chat under
 * storms). Cards go out one at a time, in order: a card sent beside another could not know
 * of the 429 the other is about to get. While the Bot API's `Retry-After` runs, cards wait
 * and their pushes resolve at once (`sent: false`), so the jobs behind them go on; when it
 * has passed, more than `digestAfter` waiting cards go out as one digest, fewer one by one.
 * A card someone asked for (`/card`) goes first and is never summed up. The queue is in
 * memory: cards still waiting when the process stops are not sent; their rows stay, so the
 * follow-up pushes no second card and `/card` sends one on request.
 */
export function createCardQueue(deps: CardQueueDeps) {
  const { chat, log } = deps;
  /** Asked for by a person (`/card`): sent before the waiting cards, never in a digest. */
  const asked: Entry[] = [];
  let waiting: Entry[] = [];
  /** A 429 held the waiting cards back: only then may they become a digest. */
  let heldBack = false;
  let draining = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let timerDueAt = 0;
  let idleWaiters: Array<() => void> = [];
  /** How long the chat's last Retry-After was, as first seen, and when it ended. */
  let lastWaitMs = 0;
  let seenUntil = 0;
  /**
   * After a digest, new cards keep waiting one more such wait: the chat's window is still
   * nearly full, and cards sent one by one behind the digest would each take a slot until
   * the next 429, so a storm that goes on would cost a minute's worth of messages per digest.
   */
  let quietUntil = 0;

  const chatHoldMs = () => chat.rateLimitedUntil() - Date.now();
  /** A card asked for waits for the chat only; the others wait out the quiet after a digest too. */
  const holdMs = () =>
    asked.length > 0 ? chatHoldMs() : Math.max(chatHoldMs(), quietUntil - Date.now());
  const queued = () => waiting.length + asked.length;
  /** Cards wait, or one is being sent: a new card goes behind them. */
  const busy = () => draining || queued() > 0;

  /** Why cards still wait at shutdown, as the chat last answered: a 429 is not a refusal. */
  function unsentAtShutdown(): string {
    if (chatHoldMs() > 0)
      return 'approval cards not sent: the chat was still rate-limited at shutdown';
    const contact = chat.lastContact();
    if (contact && contact.state !== 'reachable') {
      const why =
        contact.state === 'rate_limited' ? 'rate-limited' : `${contact.state}: ${contact.detail}`;
      return `approval cards not sent before shutdown: the chat API was last ${why}`;
    }
    return 'approval cards not sent before shutdown: they were still queued';
  }

  function settleIdle() {
    if (busy() && !closed) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  /** The chat asked to wait: every push still waiting for its answer gets it now. */
  function holdBack() {
    heldBack = true;
    const until = chat.rateLimitedUntil();
    if (until > seenUntil) {
      seenUntil = until;
      lastWaitMs = until - Date.now();
    }
    for (const entry of [...asked, ...waiting]) settle(entry, WAITS);
  }

  /** `atLeastMs`: after a 429 without a usable wait, so a refusal never turns into a busy loop. */
  function wake(atLeastMs = 0) {
    if (closed || draining) return;
    const delayMs = Math.max(atLeastMs, holdMs());
    // A card asked for during the quiet may be due sooner than the timer already set.
    if (timer && timerDueAt <= Date.now() + delayMs) return;
    clearTimeout(timer);
    timer = undefined;
    if (delayMs <= 0) {
      void drain();
      return;
    }
    // Unref'd: a process that stops with cards waiting does not wait for the chat.
    timerDueAt = Date.now() + delayMs;
    timer = setTimeout(() => {
      timer = undefined;
      void drain();
    }, delayMs);
    timer.unref();
  }

  /** Sends the head of `list`; a 429 puts it back there. */
  async function sendHead(list: Entry[]): Promise<'sent' | 'limited'> {
    const entry = list.shift();
    if (!entry) return 'sent';
    try {
      settle(entry, { result: await deps.sendCard(entry.card) });
    } catch (error) {
      if (isRateLimited(error)) {
        list.unshift(entry);
        return 'limited';
      }
      // sendCard recorded the failure; the card's row stays for `/card`.
      settle(entry, { error });
    }
    return 'sent';
  }

  async function sendDigestOfWaiting(): Promise<'sent' | 'limited'> {
    const batch = waiting;
    waiting = [];
    try {
      await deps.sendDigest(batch.map((entry) => entry.card));
    } catch (error) {
      if (isRateLimited(error)) {
        waiting = [...batch, ...waiting];
        return 'limited';
      }
      log.error(
        { err: error, cards: batch.length },
        'card digest not sent: its approvals are in the console, and /card sends one',
      );
    }
    quietUntil = Date.now() + lastWaitMs;
    for (const entry of batch) settle(entry, WAITS);
    return 'sent';
  }

  async function drain(): Promise<void> {
    if (draining || closed) return;
    draining = true;
    let limited = false;
    try {
      while (!closed && !limited && queued() > 0) {
        if (holdMs() > 0) break;
        let outcome: 'sent' | 'limited';
        if (asked.length > 0) outcome = await sendHead(asked);
        else if (heldBack && waiting.length > deps.digestAfter)
          outcome = await sendDigestOfWaiting();
        else outcome = await sendHead(waiting);
        limited = outcome === 'limited';
      }
    } catch (error) {
      log.error({ err: error }, 'card queue: drain failed');
    } finally {
      draining = false;
    }
    if (waiting.length === 0) heldBack = false;
    if (queued() > 0 && !closed) {
      holdBack();
      wake(limited ? MIN_RETRY_MS : 0);
    }
    settleIdle();
  }

  return {
    busy,
    /**
     * Queues the card behind those on their way and sends it in turn. Resolves with the
     * push's result once sent; at once with `sent: false` and CARD_WAITS_REASON when the
     * chat asks to wait (it is sent, or summed up, later); rejects with the chat's error for
     * any other failure of its own send.
     */
    submit(card: OutgoingCard, options: { asked?: boolean } = {}): Promise<CardPushResult> {
      return new Promise((resolve, reject) => {
        const entry: Entry = { card, resolve, reject, settled: false };
        (options.asked ? asked : waiting).push(entry);
        if (closed) settle(entry, WAITS);
        else if (holdMs() > 0) holdBack();
        wake();
      });
    },
    /** Resolves once no card waits or is being sent (or the queue is closed). */
    idle(): Promise<void> {
      if (!busy() || closed) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    /** At shutdown: cards still waiting are given up, with a line saying how many. */
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      if (queued() > 0) log.warn({ cards: queued() }, unsentAtShutdown());
      for (const entry of [...asked, ...waiting]) settle(entry, WAITS);
      waiting = [];
      asked.length = 0;
      settleIdle();
    },
  };
}

export type CardQueue = ReturnType<typeof createCardQueue>;
