import { isRateLimited } from '../../ports/chat.js';
import { renderApprovalCard, renderClosedCard, renderDecidedCard } from './approval-card.js';
import { createDigestSender, type DigestSenderDeps } from './card-digest-sender.js';
import { createCardEdits, isSameDecision, keyedSerial, NO_WAIT } from './card-edits.js';
import { CARD_NONCE_TTL_MS, newCardNonce, nonceHashPrefix } from './card-nonce.js';
import { CARD_WAITS_REASON, createCardQueue, type OutgoingCard } from './card-queue.js';
import {
  beginCardResend,
  decodeStoredCard,
  encodeStoredCard,
  findCard,
  insertCard,
  recordCardSendOutcome,
  setCardMessageId,
} from './card-records.js';
import {
  type ApprovalCardParams,
  type CardPushResult,
  type CardSender,
  CHAT_GATEWAY_ACTOR,
  type ClosedApproval,
} from './card-types.js';

export { CHAT_GATEWAY_ACTOR };

/** spec, Outgoing approval card: "pushed only when a chat bot token is configured". */
export const NOT_CONFIGURED_REASON = 'CHAT_BOT_TOKEN is not set';

export function createCardSender(services: DigestSenderDeps): CardSender {
  const { store, chat, clock, config, log, oplog } = services;
  const chatId = config.chatChatId ?? '';
  const serially = keyedSerial();

  async function recordPush(
    card: ApprovalCardParams,
    nonce: string,
    messageId: number | null,
    error: unknown,
  ): Promise<void> {
    const success = error === undefined;
    try {
      await oplog.append(
        {
          type: 'CHAT_SENT',
          incidentId: card.incident_id || null,
          approvalId: card.approval_id,
          actor: CHAT_GATEWAY_ACTOR,
          actionDetail: `${success ? 'approval card sent' : 'approval card not sent'} to chat ${chatId}`,
          success,
          errorMessage: success ? null : error instanceof Error ? error.message : String(error),
          context: {
            message_id: messageId,
            nonce_hash_prefix: nonceHashPrefix(nonce),
            risk_level: card.risk_level,
          },
        },
        clock.now(),
      );
    } catch (logError) {
      log.error({ err: logError, approvalId: card.approval_id }, 'CHAT_SENT entry not written');
    }
  }

  /**
   * CONTRACT, Under races, crashes and abuse: whatever the order of a first signature and the
   * sending of the first card, the chat ends up showing the signer. A decision made while the
   * card was on its way was saved on its row (markDecided); the card shows it now, as it
   * stands after any decision still being shown (read again in turn with them).
   */
  async function showDecisionMadeMeanwhile(nonce: string): Promise<void> {
    try {
      const row = await findCard(store.db, nonce);
      const stored = row && decodeStoredCard(row.text);
      if (!row?.message_id || !stored?.decided) return;
      const { decision, actor, at } = stored.decided;
      const text = renderDecidedCard(stored.text, decision, actor, at, config.displayTz);
      await chat.editMessage(row.message_id, text, null);
    } catch (error) {
      log.warn(
        { err: error, nonce_hash_prefix: nonceHashPrefix(nonce) },
        'card not marked decided',
      );
    }
  }

  /** One card's message, now; a 429 is not recorded, since the card waits and goes later. */
  async function sendCard(card: OutgoingCard): Promise<CardPushResult> {
    let messageId: number | null = null;
    try {
      const sent = await chat.sendMessage(card.text, card.keyboard ?? undefined, NO_WAIT);
      messageId = sent.message_id;
      const stored = await setCardMessageId(store.db, card.nonce, sent.message_id);
      await recordPush(card.params, card.nonce, messageId, undefined);
      if (stored?.decided && !isSameDecision(card.shown ?? null, stored.decided)) {
        await serially(card.params.approval_id, () => showDecisionMadeMeanwhile(card.nonce));
      }
      return {
        sent: true,
        message_id: sent.message_id,
        nonce: card.nonce,
        chat_response: sent.raw,
      };
    } catch (error) {
      // Rethrown as is: a ChatApiError becomes the test push's 502 `Chat API error: <reason>`.
      if (!isRateLimited(error)) {
        if (messageId === null) await recordOutcome(card.nonce, 'failed');
        await recordPush(card.params, card.nonce, messageId, error);
      }
      throw error;
    }
  }

  /**
   * On the card's row, why it has no message id, so that a follow-up run again tells a card
   * cut off by a crash (sent once more) from one the chat refused or that waits out a 429
   * (card-records.ts, cutOffCard). Not recorded (the database failed too): the card may be
   * sent once more, which the contract allows for a send whose end is not known.
   */
  async function recordOutcome(nonce: string, outcome: 'failed' | 'waiting'): Promise<void> {
    try {
      await recordCardSendOutcome(store.db, nonce, outcome);
    } catch (error) {
      log.warn(
        { err: error, nonce_hash_prefix: nonceHashPrefix(nonce) },
        'card outcome not recorded',
      );
    }
  }

  const queue = createCardQueue({
    chat,
    digestAfter: config.chatDigestAfter,
    log,
    sendCard,
    sendDigest: createDigestSender(services),
  });

  /**
   * `closed`: the approval was decided before its first card went out; the card goes without
   * buttons, saying its status, and its row carries the decision like any decided card's.
   */
  async function submit(
    card: ApprovalCardParams,
    asked: boolean,
    closed?: ClosedApproval,
  ): Promise<CardPushResult> {
    if (!chat.configured) return { sent: false, reason: NOT_CONFIGURED_REASON };
    const nonce = newCardNonce();
    let outgoing: OutgoingCard;
    try {
      const { text, keyboard } = renderApprovalCard(card, nonce);
      const decided = closed?.decided ?? null;
      const now = clock.now();
      // The row exists before the message does, so no callback can name an unknown nonce.
      // A failed send keeps it: a timed-out message may still have reached the chat. A card
      // summed up in a digest keeps it too: the follow-up pushes no second card, and `/card`
      // sends one on request.
      await insertCard(store.db, {
        nonce,
        approval_id: card.approval_id,
        chat_id: chatId,
        message_id: null,
        text: encodeStoredCard({ params: card, text, decided }),
        expires_at: now + CARD_NONCE_TTL_MS,
        // A closed card that names no decision has nothing on its row to keep it closed: its
        // nonce, never shown, is spent at once, so no hit count or resend gives it buttons.
        consumed_at: closed && !decided ? now : null,
        created_at: now,
        send_attempts: 1,
        send_outcome: null,
      });
      outgoing = closed
        ? {
            params: card,
            nonce,
            text: renderClosedCard(card, closed.status, decided, config.displayTz),
            keyboard: null,
            shown: decided,
          }
        : { params: card, nonce, text, keyboard };
    } catch (error) {
      await recordPush(card, nonce, null, error);
      throw error;
    }
    return submitQueued(outgoing, asked);
  }

  /** A card that waits out a 429 says so on its row before its push answers (and its job ends). */
  async function submitQueued(outgoing: OutgoingCard, asked: boolean): Promise<CardPushResult> {
    const result = await queue.submit(outgoing, { asked });
    if (!result.sent && result.reason === CARD_WAITS_REASON) {
      await recordOutcome(outgoing.nonce, 'waiting');
    }
    return result;
  }

  /**
   * CONTRACT, Under races, crashes and abuse, "Exactly once outside": the card whose send was
   * cut off (the process died while the chat was taking it) goes once more, with its own
   * nonce, so its row, a decision saved on it, `/card` and a button of the first message
   * should it have landed all stay as they are. Sent only by the one caller that records
   * this second send (beginCardResend).
   */
  async function resendCutOff(row: {
    nonce: string;
    approval_id: string;
  }): Promise<CardPushResult> {
    if (!chat.configured) return { sent: false, reason: NOT_CONFIGURED_REASON };
    const stored = await beginCardResend(store.db, row.nonce, clock.now() + CARD_NONCE_TTL_MS);
    if (!stored) return { sent: false, reason: 'the card was sent again already' };
    // A row of plain text (not ours) cannot be rendered again; it stays for `/card`.
    if (!stored.params) return { sent: false, reason: 'the card has no parameters to send' };
    log.info(
      { approvalId: row.approval_id, nonce_hash_prefix: nonceHashPrefix(row.nonce) },
      'approval card cut off by a crash: sending it once more',
    );
    const { text, keyboard } = renderApprovalCard(stored.params, row.nonce);
    // Decided while the first send was cut off: sent as decided, never with live buttons.
    const { decided } = stored;
    const outgoing: OutgoingCard = decided
      ? {
          params: stored.params,
          nonce: row.nonce,
          text: renderDecidedCard(
            text,
            decided.decision,
            decided.actor,
            decided.at,
            config.displayTz,
          ),
          keyboard: null,
          shown: decided,
        }
      : { params: stored.params, nonce: row.nonce, text, keyboard };
    return submitQueued(outgoing, false);
  }

  async function pushClosedOnRequest(
    card: ApprovalCardParams,
    closed: ClosedApproval,
  ): Promise<CardPushResult> {
    if (!chat.configured) return { sent: false, reason: NOT_CONFIGURED_REASON };
    const text = renderClosedCard(card, closed.status, closed.decided, config.displayTz);
    const sent = await chat.sendMessage(text);
    return { sent: true, message_id: sent.message_id, chat_response: sent.raw };
  }

  async function pushTestCard(card: ApprovalCardParams): Promise<CardPushResult> {
    if (!chat.configured) return { sent: false, reason: NOT_CONFIGURED_REASON };
    const { text, keyboard } = renderApprovalCard(card, newCardNonce());
    // A person waits for the answer: while the chat asks to wait it is a 502 at once, naming
    // how long, rather than a request held for the rest of the wait.
    const sent = await chat.sendMessage(text, keyboard, NO_WAIT);
    return { sent: true, message_id: sent.message_id, chat_response: sent.raw };
  }

  const edits = createCardEdits({
    store,
    chat,
    clock,
    log,
    displayTz: config.displayTz,
    serially,
    queueBusy: () => queue.busy(),
  });

  return {
    push: (card) => submit(card, false),
    pushClosed: (card, closed) => submit(card, false, closed),
    resendCutOff,
    pushOnRequest: (card) => submit(card, true),
    pushClosedOnRequest,
    pushTestCard,
    refreshHitCount: async (approvalId, hitCount) => {
      await edits.editHitCount(approvalId, hitCount);
    },
    editHitCount: edits.editHitCount,
    markDecided: edits.markDecided,
    idle: () => queue.idle(),
    close: () => queue.close(),
  };
}
