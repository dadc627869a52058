import type { Selectable } from 'kysely';
import type { Db, Tables } from '../../ports/store.js';
import type { CardSendOutcome } from '../../ports/tables.js';
import { renderDecidedCard } from './approval-card.js';
import type { ApprovalCardParams } from './card-types.js';

export type CardRow = Selectable<Tables['chat_cards']>;

/**
 * What the `chat_cards.text` column holds: JSON with the card's parameters, its current
 * text (with buttons) and its decision once made. Keeping the parameters lets a converged
 * alert re-render the card with a new hit count instead of patching rendered text, and
 * keeping the decision lets a late hit count skip a card that has lost its buttons. The
 * shown text is `shownCardText`.
 */
export interface StoredCard {
  /** Null for a row whose text is not ours (plain text): it can be decided, not re-rendered. */
  params: ApprovalCardParams | null;
  /** The card as sent or last refreshed, before any decision line. */
  text: string;
  decided: CardDecision | null;
}

export interface CardDecision {
  decision: string;
  actor: string;
  at: number;
}

export function encodeStoredCard(card: StoredCard): string {
  return JSON.stringify(card);
}

export function decodeStoredCard(column: string): StoredCard {
  try {
    const value = JSON.parse(column) as Partial<StoredCard> | null;
    if (value && typeof value === 'object' && typeof value.text === 'string') {
      return { params: value.params ?? null, text: value.text, decided: value.decided ?? null };
    }
  } catch {}
  return { params: null, text: column, decided: null };
}

/** The text the chat shows for this card: with its decision line once decided. */
export function shownCardText(card: StoredCard, timeZone: string): string {
  const { decided } = card;
  return decided
    ? renderDecidedCard(card.text, decided.decision, decided.actor, decided.at, timeZone)
    : card.text;
}

export async function insertCard(db: Db, row: CardRow): Promise<void> {
  await db.insertInto('chat_cards').values(row).execute();
}

/**
 * Records the message the chat made of a card; answers the card as stored then, so a
 * decision saved while it was on its way (`saveUnsentStoredCard`) is seen by its sender.
 */
export async function setCardMessageId(
  db: Db,
  nonce: string,
  messageId: number,
): Promise<StoredCard | undefined> {
  const row = await db
    .updateTable('chat_cards')
    .set({ message_id: messageId })
    .where('nonce', '=', nonce)
    .returning('text')
    .executeTakeFirst();
  return row && decodeStoredCard(row.text);
}

export async function saveStoredCard(db: Db, nonce: string, card: StoredCard): Promise<void> {
  await db
    .updateTable('chat_cards')
    .set({ text: encodeStoredCard(card) })
    .where('nonce', '=', nonce)
    .execute();
}

/**
 * Saves a card's decision while its message is still on its way: true when the card had no
 * message id yet, so its sender shows the decision once it has one; false when the message
 * id came first, so the decider edits the message itself. A conditional update, so the
 * sender's `setCardMessageId` and this one are ordered by the row, whoever comes first.
 */
export async function saveUnsentStoredCard(
  db: Db,
  nonce: string,
  card: StoredCard,
): Promise<boolean> {
  const saved = await db
    .updateTable('chat_cards')
    .set({ text: encodeStoredCard(card) })
    .where('nonce', '=', nonce)
    .where('message_id', 'is', null)
    .executeTakeFirst();
  return Number(saved.numUpdatedRows) > 0;
}

export function findCard(db: Db, nonce: string): Promise<CardRow | undefined> {
  return db.selectFrom('chat_cards').selectAll().where('nonce', '=', nonce).executeTakeFirst();
}

/**
 * Uses a card's nonce once: true for the one caller that used it, false when it was already
 * used. The check and the use are one conditional statement, so concurrent deliveries race
 * here and exactly one wins. Only a decision that counts uses it (escalation/decide-approval.ts).
 */
export async function consumeCardNonce(db: Db, nonce: string, now: number): Promise<boolean> {
  const used = await db
    .updateTable('chat_cards')
    .set({ consumed_at: now })
    .where('nonce', '=', nonce)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(used.numUpdatedRows) > 0;
}

export async function isCardNonceUsed(db: Db, nonce: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_cards')
    .select('consumed_at')
    .where('nonce', '=', nonce)
    .executeTakeFirst();
  return row !== undefined && row.consumed_at !== null;
}

/** Whether a card was ever pushed for the approval, sent, on its way, refused or summed up. */
export async function hasCardOfApproval(db: Db, approvalId: string): Promise<boolean> {
  const row = await db
    .selectFrom('chat_cards')
    .select('approval_id')
    .where('approval_id', '=', approvalId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * CONTRACT, Under races, crashes and abuse: a card cut off mid-flight may be sent once more
 * at most, as the Bot API's sendMessage gives no way to ask whether a message landed.
 */
const SEND_ATTEMPTS_MAX = 2;

/**
 * The approval's card whose send was cut off, to send once more: its oldest card, when none
 * of its cards reached the chat (a message id), was used (a button pressed on it, so it did
 * land), or has an outcome on record (the chat refused it, or it waits out a 429 in some
 * process's queue), and it was not already sent again. Undefined otherwise. A failed send
 * keeps today's rule: a timed-out message may have reached the chat, so none follows it.
 */
export function cutOffCard(cards: readonly CardRow[]): CardRow | undefined {
  const settled = cards.some(
    (card) => card.message_id !== null || card.consumed_at !== null || card.send_outcome !== null,
  );
  const first = cards[0];
  return !settled && first && first.send_attempts < SEND_ATTEMPTS_MAX ? first : undefined;
}

/**
 * Begins the one more send of a card cut off before its end was recorded: answers its stored
 * card for the one caller that may send it now, undefined for any other (already sent again,
 * or its message id or an outcome came meanwhile). One conditional update decides, so two
 * processes running the same follow-up see one winner. The nonce is valid again for
 * CARD_NONCE_TTL_MS (card-nonce.ts) from this send (`expiresAt`).
 */
export async function beginCardResend(
  db: Db,
  nonce: string,
  expiresAt: number,
): Promise<StoredCard | undefined> {
  const row = await db
    .updateTable('chat_cards')
    .set((eb) => ({ send_attempts: eb('send_attempts', '+', 1), expires_at: expiresAt }))
    .where('nonce', '=', nonce)
    .where('message_id', 'is', null)
    .where('consumed_at', 'is', null)
    .where('send_outcome', 'is', null)
    .where('send_attempts', '<', SEND_ATTEMPTS_MAX)
    .returning('text')
    .executeTakeFirst();
  return row && decodeStoredCard(row.text);
}

/**
 * Records why a card has no message id: `failed` (the chat refused it; it is not sent again)
 * or `waiting` (a 429: it waits in this process's queue, and a follow-up run again must not
 * send it beside the queue). A card the chat took meanwhile keeps its message id only; a
 * card on record as failed stays so.
 */
export async function recordCardSendOutcome(
  db: Db,
  nonce: string,
  outcome: CardSendOutcome,
): Promise<void> {
  let update = db
    .updateTable('chat_cards')
    .set({ send_outcome: outcome })
    .where('nonce', '=', nonce)
    .where('message_id', 'is', null);
  if (outcome === 'waiting') update = update.where('send_outcome', 'is', null);
  await update.execute();
}

/**
 * The approval's newest card, sent or not (a card summed up in a digest has no message id):
 * its parameters are what `/card` sends again.
 */
export function latestCardOfApproval(db: Db, approvalId: string): Promise<CardRow | undefined> {
  return db
    .selectFrom('chat_cards')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Every card of the approval, sent, on its way or summed up in a digest; oldest first (as
 * `sentCardsOfApproval` orders the sent ones).
 */
export function cardsOfApproval(db: Db, approvalId: string): Promise<CardRow[]> {
  return db
    .selectFrom('chat_cards')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .orderBy('created_at')
    .orderBy('message_id')
    .orderBy('nonce')
    .execute();
}

/**
 * Oldest first; only cards the chat accepted (a message id) can be edited. Message ids rise
 * within a chat, so they order cards pushed within the same millisecond.
 */
export function sentCardsOfApproval(db: Db, approvalId: string): Promise<CardRow[]> {
  return db
    .selectFrom('chat_cards')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .where('message_id', 'is not', null)
    .orderBy('created_at')
    .orderBy('message_id')
    .execute();
}
