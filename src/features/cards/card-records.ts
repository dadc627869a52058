import type { Selectable } from 'kysely';
import type { Db, Tables } from '../../ports/store.js';
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

/**
 * Whether a card was ever pushed for the approval, sent or not: a push that failed or timed
 * out may still have reached the chat, so a retried follow-up does not push another.
 */
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
