import type { ChatCallOptions } from '../../ports/chat.js';
import { isRateLimited } from '../../ports/chat.js';
import type { Services } from '../../services.js';
import { renderApprovalCard, renderDecidedCard } from './approval-card.js';
import {
  type CardDecision,
  type CardRow,
  cardsOfApproval,
  decodeStoredCard,
  findCard,
  saveStoredCard,
  saveUnsentStoredCard,
  sentCardsOfApproval,
} from './card-records.js';
import type { HitCountEdit } from './card-types.js';

/** Runs the work for one key one at a time, in call order. */
export type KeyedSerial = (key: string, work: () => Promise<void>) => Promise<void>;

export interface CardEditDeps extends Pick<Services, 'store' | 'chat' | 'clock' | 'log'> {
  /** DISPLAY_TZ */
  displayTz: string;
  /** The sender's: a hit count and a decision for one approval never interleave. */
  serially: KeyedSerial;
  /** Whether new cards wait in the sender's queue (a hit count never goes ahead of them). */
  queueBusy: () => boolean;
}

/**
 * Cards and hit counts do not wait out a 429 inside the chat call: the card queue keeps their
 * order (CONTRACT, Chat under storms), and a hit count is tried again later.
 */
export const NO_WAIT: ChatCallOptions = { waitOutRateLimit: false };

/** The edits of cards already sent: their hit count, and the decision that closes them. */
export function createCardEdits(deps: CardEditDeps) {
  const { store, chat, clock, log, displayTz, serially } = deps;

  // CONTRACT: "Converged alerts edit the existing card's hit count instead of sending a new one".
  async function editHitCount(approvalId: string, hitCount: number): Promise<HitCountEdit> {
    if (!chat.configured) return 'unchanged';
    let outcome: HitCountEdit = 'unchanged';
    await serially(approvalId, async () => {
      // CONTRACT, Chat under storms: a hit count never goes ahead of a waiting new card.
      if (deps.queueBusy()) {
        outcome = 'deferred';
        return;
      }
      try {
        const latest = (await sentCardsOfApproval(store.db, approvalId)).at(-1);
        if (!latest || latest.message_id === null || latest.consumed_at !== null) return;
        const stored = decodeStoredCard(latest.text);
        // A decided card keeps its decision; a count that arrives late never lowers the shown one.
        if (!stored.params || stored.decided) return;
        if ((stored.params.hit_count ?? 1) >= hitCount) return;
        const params = { ...stored.params, hit_count: hitCount };
        const { text, keyboard } = renderApprovalCard(params, latest.nonce);
        await chat.editMessage(latest.message_id, text, keyboard, NO_WAIT);
        await saveStoredCard(store.db, latest.nonce, { params, text, decided: null });
        outcome = 'edited';
      } catch (error) {
        if (isRateLimited(error)) {
          outcome = 'deferred';
          return;
        }
        log.warn({ err: error, approvalId, hitCount }, 'approval card hit count not refreshed');
      }
    });
    return outcome;
  }

  // CONTRACT, Chat callbacks: "a decided card loses its buttons ... and shows who decided".
  async function markDecided(
    approvalId: string,
    decision: string,
    actor: string,
    at = clock.now(),
  ): Promise<void> {
    if (!chat.configured) return;
    await serially(approvalId, async () => {
      let cards: CardRow[];
      try {
        cards = await cardsOfApproval(store.db, approvalId);
      } catch (error) {
        log.warn({ err: error, approvalId }, 'approval cards not read');
        return;
      }
      const decided = { decision, actor, at };
      for (const card of cards) {
        try {
          await markCardDecided(card, decided);
        } catch (error) {
          log.warn(
            { err: error, approvalId, messageId: card.message_id },
            'card not marked decided',
          );
        }
      }
    });
  }

  /**
   * A card still on its way (or summed up in a digest) keeps the decision on its row for its
   * sender to show; one whose message id came meanwhile is edited like any sent card.
   */
  async function markCardDecided(card: CardRow, decided: CardDecision): Promise<void> {
    let row: CardRow | undefined = card;
    if (row.message_id === null) {
      const stored = decodeStoredCard(row.text);
      if (await saveUnsentStoredCard(store.db, row.nonce, { ...stored, decided })) return;
      row = await findCard(store.db, card.nonce);
      if (!row || row.message_id === null) return;
    }
    const stored = decodeStoredCard(row.text);
    const { decision, actor, at } = decided;
    // Marked again with the same decision (a follow-up job after the immediate edit, or run
    // twice): the card already says so, and the chat would refuse an edit that changes nothing.
    if (isSameDecision(stored.decided, decided)) return;
    const text = renderDecidedCard(stored.text, decision, actor, at, displayTz);
    await chat.editMessage(row.message_id, text, null);
    await saveStoredCard(store.db, row.nonce, { ...stored, decided });
  }

  return { editHitCount, markDecided };
}

export function isSameDecision(shown: CardDecision | null, decided: CardDecision): boolean {
  return (
    shown !== null &&
    shown.decision === decided.decision &&
    shown.actor === decided.actor &&
    shown.at === decided.at
  );
}

/**
 * Runs the work for one key one at a time, in call order, so a hit count and a decision for
 * the same approval never interleave their read-render-edit-save steps.
 */
export function keyedSerial(): KeyedSerial {
  const tails = new Map<string, Promise<void>>();
  return (key: string, work: () => Promise<void>): Promise<void> => {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
