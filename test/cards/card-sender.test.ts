import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApprovalCard } from '../../src/features/cards/approval-card.js';
import { CallbackDataTooLongError } from '../../src/features/cards/callback-data.js';
import { CARD_NONCE_TTL_MS } from '../../src/features/cards/card-nonce.js';
import {
  decodeStoredCard,
  encodeStoredCard,
  insertCard,
} from '../../src/features/cards/card-records.js';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import type { ApprovalCardParams } from '../../src/features/cards/card-types.js';
import { ChatApiError } from '../../src/ports/chat.js';
import type { Services } from '../../src/services.js';
import { type Backend, backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';

const card: ApprovalCardParams = {
  approval_id: '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b',
  risk_level: 'high',
  resource_name: 'checkout-api-7f9c',
  root_cause: 'Memory limit too low',
  suggested_action: 'DELETE_POD',
  estimated_downtime: '~30s',
  incident_id: 'inc-1',
};

describe.each(backends())('card sender on %s', (backend: Backend) => {
  let tg: TelegramStandIn;
  let services: Services;
  let clock: TestClock;

  async function appWithChat(env: Record<string, string>) {
    const { app } = await buildTestApp({
      backend,
      clock,
      env: { CHAT_POLLING: 'false', SIGNAL_CONSUMER: 'false', ...env },
    });
    return app.services;
  }

  beforeEach(async () => {
    clock = new TestClock();
    tg = await startTelegramStandIn();
    services = await appWithChat({
      CHAT_BOT_TOKEN: tg.token,
      CHAT_CHAT_ID: '4242',
      CHAT_API_BASE: tg.apiBase,
    });
  });

  const cardRows = (approvalId = card.approval_id) =>
    services.store.db
      .selectFrom('chat_cards')
      .selectAll()
      .where('approval_id', '=', approvalId)
      .execute();

  const chatSentEntries = () =>
    services.store.db
      .selectFrom('operation_log')
      .selectAll()
      .where('type', '=', 'CHAT_SENT')
      .orderBy('seq')
      .execute();

  describe('card sender: push', () => {
    it('sends the card with a fresh nonce, stores it for 24 hours and logs CHAT_SENT', async () => {
      const result = await createCardSender(services).push(card);

      expect(result).toMatchObject({ sent: true, message_id: 1, chat_response: { ok: true } });
      expect(result.nonce).toMatch(/^[0-9a-f]{16}$/);
      const nonce = result.nonce!;
      const expected = renderApprovalCard(card, nonce);
      expect(tg.calls('sendMessage')[0]!.body).toEqual({
        chat_id: '4242',
        text: expected.text,
        reply_markup: { inline_keyboard: expected.keyboard },
      });

      const [row] = await cardRows();
      expect(row).toMatchObject({
        nonce,
        approval_id: card.approval_id,
        chat_id: '4242',
        message_id: 1,
        expires_at: clock.ms + CARD_NONCE_TTL_MS,
        consumed_at: null,
        created_at: clock.ms,
      });
      expect(decodeStoredCard(row!.text)).toEqual({
        params: card,
        text: expected.text,
        decided: null,
      });

      const [entry] = await chatSentEntries();
      expect(entry).toMatchObject({
        incident_id: 'inc-1',
        approval_id: card.approval_id,
        actor: 'chat-gateway',
        action_detail: 'approval card sent to chat 4242',
        success: 1,
        error_message: null,
      });
      expect(JSON.parse(entry!.context)).toEqual({
        message_id: 1,
        nonce_hash_prefix: crypto.createHash('sha256').update(nonce).digest('hex').slice(0, 12),
        risk_level: 'high',
      });
    });

    it('uses a new nonce for every card', async () => {
      const sender = createCardSender(services);
      const nonces = new Set<string>();
      for (let i = 0; i < 5; i++) nonces.add((await sender.push(card)).nonce!);
      expect(nonces.size).toBe(5);
    });

    it('stores the card before the message exists', async () => {
      let rowsWhileSending = -1;
      const chat = services.chat;
      const watched: Services = {
        ...services,
        chat: {
          ...chat,
          configured: true,
          async sendMessage(text, keyboard) {
            rowsWhileSending = (await cardRows()).length;
            return chat.sendMessage(text, keyboard);
          },
        },
      };
      await createCardSender(watched).push(card);
      expect(rowsWhileSending).toBe(1);
    });

    it('logs a failed CHAT_SENT and rethrows the ChatApiError when the chat refuses', async () => {
      tg.failNext('sendMessage', 'Bad Request: chat not found');
      const error = await createCardSender(services)
        .push({ ...card, incident_id: '' })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ChatApiError);
      expect((error as ChatApiError).reason).toBe('Bad Request: chat not found');
      const [entry] = await chatSentEntries();
      expect(entry).toMatchObject({
        incident_id: null,
        success: 0,
        action_detail: 'approval card not sent to chat 4242',
        error_message: 'Chat API error: Bad Request: chat not found',
      });
      expect(JSON.parse(entry!.context)).toMatchObject({ message_id: null, risk_level: 'high' });
      // Kept: a message that timed out may still have reached the chat and be pressed.
      expect(await cardRows()).toMatchObject([{ message_id: null }]);
    });

    it('logs a failed CHAT_SENT when the card cannot be rendered', async () => {
      const tooLong = { ...card, approval_id: 'x'.repeat(40) };
      await expect(createCardSender(services).push(tooLong)).rejects.toThrow(
        CallbackDataTooLongError,
      );
      expect(tg.calls('sendMessage')).toEqual([]);
      expect(await chatSentEntries()).toMatchObject([
        { success: 0, approval_id: tooLong.approval_id },
      ]);
    });

    it('sends nothing and writes nothing without a bot token', async () => {
      const plain = await appWithChat({});
      const result = await createCardSender(plain).push(card);
      expect(result).toEqual({ sent: false, reason: 'CHAT_BOT_TOKEN is not set' });
      expect(tg.calls()).toEqual([]);
      const rows = await plain.store.db.selectFrom('chat_cards').selectAll().execute();
      expect(rows).toEqual([]);
      expect(await plain.store.db.selectFrom('operation_log').selectAll().execute()).toEqual([]);
    });
  });

  describe('card sender: refreshHitCount', () => {
    it('edits the latest card to show the hit count and keeps its buttons', async () => {
      const sender = createCardSender(services);
      await sender.push(card);
      const latest = await sender.push(card);
      await sender.refreshHitCount(card.approval_id, 3);

      const [edit] = tg.calls('editMessageText');
      expect(edit!.body.message_id).toBe(latest.message_id);
      const expected = renderApprovalCard({ ...card, hit_count: 3 }, latest.nonce!);
      expect(edit!.body.text).toBe(expected.text);
      expect(edit!.body.text).toContain('Root cause: [x3] Memory limit too low');
      expect(tg.message(latest.message_id!)?.reply_markup?.inline_keyboard).toEqual(
        expected.keyboard,
      );
      expect(tg.calls('sendMessage')).toHaveLength(2);
    });

    it('never lowers the shown count, and skips consumed cards and unknown approvals', async () => {
      const sender = createCardSender(services);
      const pushed = await sender.push(card);
      await sender.refreshHitCount(card.approval_id, 4);
      await sender.refreshHitCount(card.approval_id, 2);
      await sender.refreshHitCount(card.approval_id, 4);
      expect(tg.calls('editMessageText')).toHaveLength(1);

      await services.store.db
        .updateTable('chat_cards')
        .set({ consumed_at: clock.ms })
        .where('nonce', '=', pushed.nonce!)
        .execute();
      await sender.refreshHitCount(card.approval_id, 9);
      await sender.refreshHitCount('no-such-approval', 9);
      expect(tg.calls('editMessageText')).toHaveLength(1);
    });

    it('applies concurrent refreshes in order', async () => {
      const sender = createCardSender(services);
      const pushed = await sender.push(card);
      await Promise.all([2, 3, 4, 5].map((n) => sender.refreshHitCount(card.approval_id, n)));
      expect(tg.message(pushed.message_id!)?.text).toContain('[x5]');
    });

    it('logs an edit failure instead of throwing', async () => {
      const sender = createCardSender(services);
      await sender.push(card);
      tg.failNext('editMessageText', 'Bad Request: message to edit not found');
      await expect(sender.refreshHitCount(card.approval_id, 2)).resolves.toBeUndefined();
    });
  });

  describe('card sender: markDecided', () => {
    it('edits every card of the approval to the decision, without buttons', async () => {
      const sender = createCardSender(services);
      const first = await sender.push(card);
      const second = await sender.push(card);
      await sender.push({ ...card, approval_id: 'other-approval' });
      await sender.markDecided(card.approval_id, 'approved', 'tg_42');

      const edits = tg.calls('editMessageText');
      expect(edits.map((e) => e.body.message_id)).toEqual([first.message_id, second.message_id]);
      for (const pushed of [first, second]) {
        const message = tg.message(pushed.message_id!)!;
        expect(message.reply_markup).toBeUndefined();
        // TestClock: 2026-11-22T01:02:03Z, shown in DISPLAY_TZ (Asia/Taipei)
        expect(message.text).toBe(
          `${renderApprovalCard(card, pushed.nonce!).text}\n\n✅ Approved by tg_42 · 2026-11-22T09:02:03+08:00`,
        );
      }
      const stored = decodeStoredCard((await cardRows())[0]!.text);
      expect(stored.decided).toEqual({ decision: 'approved', actor: 'tg_42', at: clock.ms });
    });

    it('leaves a decided card alone when a late hit count arrives', async () => {
      const sender = createCardSender(services);
      await sender.push(card);
      await sender.markDecided(card.approval_id, 'rejected', 'tg_7');
      await sender.refreshHitCount(card.approval_id, 5);
      expect(tg.calls('editMessageText')).toHaveLength(1);
    });

    // CONTRACT, Under races, crashes and abuse: the job that closes an expired approval's
    // cards after a crash runs after the immediate edit too, or twice; it changes nothing.
    it('leaves a card already showing the same decision alone', async () => {
      const sender = createCardSender(services);
      const pushed = await sender.push(card);
      const at = clock.ms;
      await sender.markDecided(card.approval_id, 'Incident resolved', 'console_alice', at);
      const shown = tg.message(pushed.message_id!)!.text;
      clock.advance(60_000);
      await sender.markDecided(card.approval_id, 'Incident resolved', 'console_alice', at);
      expect(tg.calls('editMessageText')).toHaveLength(1);
      expect(tg.message(pushed.message_id!)?.text).toBe(shown);
      // Another decision still edits it (a second signer's after the first's).
      await sender.markDecided(card.approval_id, 'approved', 'tg_42');
      expect(tg.calls('editMessageText')).toHaveLength(2);
    });

    it('keeps going past a card that cannot be edited', async () => {
      const sender = createCardSender(services);
      await sender.push(card);
      const second = await sender.push(card);
      tg.failNext('editMessageText', 'Bad Request: message to edit not found');
      await expect(
        sender.markDecided(card.approval_id, 'rejected', 'tg_7'),
      ).resolves.toBeUndefined();
      expect(tg.message(second.message_id!)?.text).toContain('❌ Rejected by tg_7');
    });
  });

  // CONTRACT, Under races, crashes and abuse: a card decided while its send was cut off (the
  // process died while the chat took it) goes once more as decided, never with live buttons.
  describe('card sender: resendCutOff', () => {
    it('sends a card decided while cut off without buttons, saying the decision', async () => {
      const sender = createCardSender(services);
      const nonce = 'c0ffee00c0ffee00';
      const { text } = renderApprovalCard(card, nonce);
      // The row as a killed send leaves it: no message id, no outcome.
      await insertCard(services.store.db, {
        nonce,
        approval_id: card.approval_id,
        chat_id: '4242',
        message_id: null,
        text: encodeStoredCard({ params: card, text, decided: null }),
        expires_at: clock.ms + CARD_NONCE_TTL_MS,
        consumed_at: null,
        created_at: clock.ms,
        send_attempts: 1,
        send_outcome: null,
      });
      await sender.markDecided(card.approval_id, 'approved', 'tg_42');
      const resent = await sender.resendCutOff({ nonce, approval_id: card.approval_id });
      expect(resent).toMatchObject({ sent: true, nonce });
      const [call] = tg.calls('sendMessage');
      expect(tg.calls('sendMessage')).toHaveLength(1);
      expect(call!.body.reply_markup).toBeUndefined();
      expect(call!.body.text).toContain('✅ Approved by tg_42');
      expect(tg.message(resent.message_id!)?.reply_markup).toBeUndefined();
      expect(tg.calls('editMessageText')).toHaveLength(0);
    });
  });
});
