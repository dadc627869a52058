import type { FastifyInstance } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { decodeStoredCard, hasCardOfApproval } from '../../src/features/cards/card-records.js';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { pushCardOnce } from '../../src/features/escalation/card-once.js';
import { type Backend, backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import {
  type RecordedCall,
  startTelegramStandIn,
  type TelegramStandIn,
} from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import { chatEnv, press, STRANGER, WHITELISTED } from './chat-flow.js';

/**
 * CONTRACT, Chat under storms: cards waiting out a 429, more than CHAT_DIGEST_AFTER of them,
 * go out as one digest; `/card <approval_id>` sends one of them to a whitelisted user.
 */

const accepted = (tg: TelegramStandIn) =>
  tg.calls('sendMessage').filter((call) => call.status === 200);
const isCard = (call: RecordedCall) => Boolean(call.body.reply_markup);
const isDigest = (call: RecordedCall) => /^\d+ new incidents\n/.test(call.body.text ?? '');

function stormAlert(i: number) {
  const severity = i < 2 ? 'P0' : i < 5 ? 'critical' : i % 50 === 49 ? 'info' : 'warning';
  return {
    alert_name: i < 2 ? 'ClusterDown' : `StormAlert${i}`,
    severity,
    namespace: `storm-${i % 7}`,
    target_resource: `svc${i}`,
  };
}

describe.each(backends())('chat under a storm on %s', (backend: Backend) => {
  let tg: TelegramStandIn;
  let app: FastifyInstance;

  beforeEach(async () => {
    tg = await startTelegramStandIn({ maxLongPollMs: 500 });
    ({ app } = await buildTestApp({
      backend,
      env: chatEnv(tg, { PUBLIC_URL: 'https://ops.example.com', CHAT_POLLING: 'true' }),
    }));
  });

  const cardRows = () =>
    app.services.store.db.selectFrom('chat_cards').select(['approval_id', 'nonce']).execute();

  /**
   * `n` new incidents while the chat refuses every message (429, retry_after 1), the first
   * incident seen three times; then the chat takes messages again. Returns the approval ids.
   */
  async function storm(n: number): Promise<string[]> {
    tg.floodLimit({ messages: 0, perSeconds: 1 });
    const approvalIds: string[] = [];
    for (let start = 0; start < n; start += 50) {
      const chunk = Array.from({ length: Math.min(50, n - start) }, (_, k) => start + k);
      const answers = await Promise.all(
        chunk.map((i) => postSigned(app, '/api/v1/webhooks/alerts', stormAlert(i))),
      );
      approvalIds.push(...answers.map((answer) => answer.json().approval_id as string));
    }
    await postSigned(app, '/api/v1/webhooks/alerts', stormAlert(0));
    await postSigned(app, '/api/v1/webhooks/alerts', stormAlert(0));
    await waitFor(async () => ((await cardRows()).length >= n ? true : undefined), {
      timeoutMs: 30_000,
      what: `${n} card rows`,
    });
    // A row is written just before its card joins the queue.
    await new Promise((resolve) => setTimeout(resolve, 200));
    tg.floodLimit(undefined);
    await waitFor(async () => accepted(tg).find(isDigest), { what: 'the digest' });
    return approvalIds;
  }

  it('sums 300 waiting cards up in one digest, most severe first, and sends no card', async () => {
    const approvalIds = await storm(300);
    // Any straggler would show within a retry.
    await new Promise((resolve) => setTimeout(resolve, 1200));

    const sent = accepted(tg);
    expect(sent.filter(isCard)).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(tg.calls().filter((call) => call.duringWait)).toEqual([]);
    const lines = sent[0]!.body.text!.split('\n');
    expect(lines[0]).toBe('300 new incidents');
    const shown = lines.filter((line) => line.includes(' · '));
    expect(shown).toHaveLength(10);
    expect(shown.slice(0, 2)).toEqual([
      '🔴 P0 · ClusterDown · storm-0 · x3',
      '🔴 P0 · ClusterDown · storm-1 · x1',
    ]);
    expect(shown.slice(2, 5).every((line) => line.startsWith('🟠 P1 · '))).toBe(true);
    expect(shown.slice(5).every((line) => line.startsWith('🟡 P2 · '))).toBe(true);
    expect(lines).toContain('… and 290 more');
    expect(lines).toContain('Decide in the console: https://ops.example.com/console/');

    // Every summed-up card keeps its record, so the follow-up's card-once rule holds.
    expect(new Set((await cardRows()).map((row) => row.approval_id)).size).toBe(300);
    expect(await hasCardOfApproval(app.services.store.db, approvalIds[7]!)).toBe(true);
    const before = tg.calls('sendMessage').length;
    await pushCardOnce(app.services, createCardSender(app.services), {
      approval_id: approvalIds[7]!,
      risk_level: 'medium',
      resource_name: 'svc7',
      root_cause: 'again',
      suggested_action: 'DELETE_POD',
      estimated_downtime: 'unknown',
    });
    expect(tg.calls('sendMessage')).toHaveLength(before);
  });

  it('/card sends a summed-up approval its card, with a fresh nonce, to a whitelisted user only', async () => {
    const approvalIds = await storm(30);
    expect(accepted(tg)).toHaveLength(1);
    const approvalId = approvalIds[3]!;
    const [summedUp] = await app.services.store.db
      .selectFrom('chat_cards')
      .selectAll()
      .where('approval_id', '=', approvalId)
      .execute();
    const ask = (userId: number, text = `/card ${approvalId}`) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/chatops/webhook',
        payload: {
          update_id: 7,
          message: { message_id: 9, from: { id: userId }, chat: { id: 4242 }, text },
        },
      });

    for (const answer of [await ask(STRANGER), await ask(WHITELISTED, '/card no-such-approval')]) {
      expect(answer.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(accepted(tg)).toHaveLength(1);

    expect((await ask(WHITELISTED)).json()).toEqual({
      ok: true,
      message: 'Ignored (not callback_query)',
    });
    const card = await waitFor(async () => accepted(tg).find(isCard), { what: 'the card' });
    const data = card.body.reply_markup!.inline_keyboard![0]![0]!.callback_data;
    const [, cardApproval, nonce] = data.split(':');
    expect(cardApproval).toBe(approvalId);
    expect(nonce).not.toBe(summedUp!.nonce);
    expect(decodeStoredCard(summedUp!.text).params?.approval_id).toBe(approvalId);
    const decided = await press(app, 'approve', { approvalId, nonce: nonce! });
    expect(decided.json()).toMatchObject({ ok: true, message: 'Approved' });

    // By long polling too: the same command as a message update.
    const other = approvalIds[4]!;
    tg.queueUpdate({
      message: { message_id: 10, from: { id: WHITELISTED }, text: `/card ${other}` },
    });
    tg.queueUpdate({ message: { message_id: 11, from: { id: STRANGER }, text: `/card ${other}` } });
    await waitFor(
      async () =>
        accepted(tg).find((call) => call.body.reply_markup && call.body.text?.includes(other)),
      { what: 'the card asked for by long polling' },
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    const cardsOfOther = accepted(tg).filter(
      (call) => isCard(call) && call.body.text?.includes(`Approval: ${other}`),
    );
    expect(cardsOfOther).toHaveLength(1);
  });
});
