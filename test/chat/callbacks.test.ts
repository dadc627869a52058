import { beforeAll, describe, expect, it } from 'vitest';
import { cardsOfApproval } from '../../src/features/cards/card-records.js';
import {
  backends,
  buildTestApp,
  postSigned,
  type TestApp,
  TestClock,
} from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  cardFor,
  chatEnv,
  openIncidentCard,
  press,
  pushAnotherCard,
  SECOND_SIGNER,
  STRANGER,
  WHITELISTED,
} from './chat-flow.js';

const crashLoop = {
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  target_resource: 'cart-6b8f9c7d5-k2p9x',
};

describe.each(backends())('chat callbacks on %s', (backend) => {
  let tg: TelegramStandIn;
  const clock = new TestClock(Date.now());
  let app: TestApp['app'];
  beforeAll(async () => {
    tg = await startTelegramStandIn();
    ({ app } = await buildTestApp({ backend, clock, env: chatEnv(tg) }));
  });
  const approval = async (id: string) => (await app.inject(`/api/v1/approvals/${id}`)).json();

  it('sends a card with Approve/Reject and, with an incident, Details/Analyze', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'card' });
    expect(
      card.keyboard.map((row) => row.map((button) => button.text.replace(/^\W+\s*/, ''))),
    ).toEqual([
      ['Approve', 'Reject'],
      ['Details', 'Analyze'],
    ]);
    expect(card.nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(card.keyboard[0]![0]!.callback_data).toBe(`approve:${card.approvalId}:${card.nonce}`);
  });

  it('ignores updates without a callback_query (step 1)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: { update_id: 5, message: { text: 'hi' } },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
    const garbage = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: '{nope',
      headers: { 'content-type': 'application/json' },
    });
    expect(garbage.statusCode).toBe(200);
  });

  it.each([
    [{ callback_query: { data: 'approve:a:b', from: { id: 1 } } }],
    [{ callback_query: { id: 'c', from: { id: 1 } } }],
    [{ callback_query: { id: 'c', data: 'approve:a:b', from: {} } }],
    [{ callback_query: { id: 'c', data: 'approve-only', from: { id: 1 } } }],
  ])('answers Invalid callback data for %j (step 2)', async (update) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: { update_id: 6, ...update },
    });
    expect(response.json()).toEqual({ ok: false, message: 'Invalid callback data' });
  });

  // CONTRACT, Chat callbacks: the approval id is all between the first and the last colon, so
  // such data is well formed and the gateway's nonce check answers it (step 3).
  it.each([
    ['a1:b2', '0123456789abcdef'],
    ['ns:team:a1', '0123456789abcdef'],
    ['a1:', 'fedcba9876543210'],
  ])('takes approval id %j as one id and checks its nonce (steps 2 and 3)', async (id, nonce) => {
    for (const action of ['approve', 'details']) {
      expect((await press(app, action, { approvalId: id, nonce })).json()).toEqual({
        ok: false,
        message: 'Invalid nonce',
      });
    }
  });

  it('checks the whitelist and the nonce (step 3)', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'gate' });
    expect((await press(app, 'approve', card, STRANGER)).json()).toEqual({
      ok: false,
      message: 'User not authorized',
    });
    expect((await press(app, 'approve', { ...card, nonce: '0123456789abcdef' })).json()).toEqual({
      ok: false,
      message: 'Invalid nonce',
    });
    const other = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'gate-other' });
    expect(
      (await press(app, 'approve', { approvalId: other.approvalId, nonce: card.nonce })).json(),
    ).toEqual({ ok: false, message: 'Invalid nonce' });
    expect((await approval(card.approvalId)).status).toBe('pending');
  });

  it('answers information actions without using the nonce (step 4)', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'info' });
    tg.clearCalls();
    for (const action of ['details', 'logs', 'metrics', 'analyze']) {
      expect((await press(app, action, card)).json()).toEqual({
        ok: true,
        message: `info:${action}`,
        approval_id: card.approvalId,
      });
    }
    // The auto-repair result may also reach the chat meanwhile; the four answers are ours.
    const answers = tg
      .calls('sendMessage')
      .map((call) => call.body.text ?? '')
      .filter((text) =>
        /^(Approval |Timeline of |No operation-log|Metrics of |Analysis of )/.test(text),
      );
    expect(answers).toHaveLength(4);
    expect(answers.every((text) => text.includes(card.approvalId))).toBe(true);
    expect(tg.calls('answerCallbackQuery').map((c) => c.body.text)).toEqual([
      'info:details',
      'info:logs',
      'info:metrics',
      'info:analyze',
    ]);
    expect((await press(app, 'approve', card)).json().message).toBe('Approved');
  });

  it('approves once, edits the card to show who decided, then executes (step 5)', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'approve' });
    const response = await press(app, 'approve', card);
    expect(response.json()).toEqual({
      ok: true,
      message: 'Approved',
      approval_id: card.approvalId,
      status: 'approved',
      execution_triggered: true,
    });
    const edited = tg.message(card.messageId)!;
    expect(edited.reply_markup).toBeUndefined();
    expect(edited.text).toContain(`tg_${WHITELISTED}`);
    expect((await press(app, 'approve', card)).json()).toEqual({
      ok: false,
      message: 'Already processed',
    });
    const done = await waitFor(async () => {
      const status = (await approval(card.approvalId)).status;
      return status === 'executed' || status === 'failed' ? status : undefined;
    });
    expect(done).toBe('executed');
    const moves = (await approval(card.approvalId)).decisions;
    expect(
      moves.map((m: { to_status: string; actor: string; channel: string }) => [
        m.to_status,
        m.actor,
        m.channel,
      ]),
    ).toEqual([
      ['approved', `tg_${WHITELISTED}`, 'chat'],
      ['executing', `tg_${WHITELISTED}`, 'chat'],
      ['executed', `tg_${WHITELISTED}`, 'chat'],
    ]);
    const log = (await app.inject(`/api/v1/operation-log?approval_id=${card.approvalId}`)).json();
    expect(log.items.map((e: { type: string }) => e.type)).toContain('EXECUTION_COMPLETED');
  });

  it('rejects (step 6), and a decided approval answers Approval already <status>', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'reject' });
    expect((await press(app, 'reject', card)).json()).toEqual({
      ok: true,
      message: 'Rejected',
      approval_id: card.approvalId,
      status: 'rejected',
    });
    await pushAnotherCard(app, card.approvalId);
    const fresh = await cardFor(app, tg, card.approvalId, 2);
    expect((await press(app, 'approve', fresh)).json()).toEqual({
      ok: false,
      message: 'Approval already rejected',
    });
  });

  // CONTRACT, Under races, crashes and abuse: `/card <id>` for an approval no longer pending.
  it('/card for a decided approval sends a card without buttons that says its status', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'card-decided' });
    expect((await press(app, 'reject', card)).json()).toMatchObject({ status: 'rejected' });
    tg.clearCalls();
    const asked = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: {
        update_id: 8,
        message: { message_id: 9, from: { id: WHITELISTED }, text: `/card ${card.approvalId}` },
      },
    });
    expect(asked.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
    // Other messages (a repair's dry run) may reach the chat meanwhile; the card is ours.
    const sent = await waitFor(async () =>
      tg.calls('sendMessage').find((call) => call.body.text?.startsWith(card.text.split('\n')[0]!)),
    );
    expect(sent!.body.text).toContain(`Approval: ${card.approvalId}`);
    expect(sent!.body.reply_markup?.inline_keyboard ?? []).toEqual([]);
    expect(sent!.body.text).toContain(`❌ Rejected by tg_${WHITELISTED}`);
    expect(sent!.body.text).toMatch(/\nStatus: rejected$/);
    const rows = await cardsOfApproval(app.services.store.db, card.approvalId);
    expect(rows).toHaveLength(1);
  });

  it('answers Unknown action (step 7) and Approval not found', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'unknown' });
    expect((await press(app, 'frobnicate', card)).json()).toEqual({
      ok: false,
      message: 'Unknown action',
    });
    await pushAnotherCard(app, 'no-such-approval');
    const orphan = await cardFor(app, tg, 'no-such-approval');
    expect((await press(app, 'approve', orphan)).json()).toEqual({
      ok: false,
      message: 'Approval not found: no-such-approval',
    });
  });

  it('needs two distinct signers for a critical approval', async () => {
    const card = await openIncidentCard(app, tg, {
      ...crashLoop,
      severity: 'P0',
      namespace: 'critical',
    });
    expect((await approval(card.approvalId)).risk_level).toBe('critical');
    const first = (await press(app, 'approve', card)).json();
    expect(first).toMatchObject({
      ok: true,
      message: 'Approved',
      status: 'pending',
      execution_triggered: false,
    });
    const second = await waitFor(async () => {
      const calls = tg
        .calls('sendMessage')
        .filter((c) =>
          c.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data.includes(card.approvalId),
        );
      return calls.length >= 2 ? calls[1] : undefined;
    });
    const nonce = second.body.reply_markup!.inline_keyboard![0]![0]!.callback_data.split(':')[2]!;
    expect(
      (await press(app, 'approve', { approvalId: card.approvalId, nonce }, SECOND_SIGNER)).json(),
    ).toMatchObject({ status: 'approved', execution_triggered: true });
  });

  it('expires a nonce after 24 hours', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'expiry' });
    clock.advance(24 * 60 * 60 * 1000 + 1);
    expect((await press(app, 'approve', card)).json()).toEqual({
      ok: false,
      message: 'Nonce expired',
    });
  });

  it('lets exactly one of 50 concurrent approve deliveries through', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'race' });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => press(app, 'approve', card)),
    );
    const messages = answers.map((a) => a.json().message);
    expect(messages.filter((m) => m === 'Approved')).toHaveLength(1);
    expect(messages.filter((m) => m === 'Already processed')).toHaveLength(49);
  });

  it('edits the card hit count when alerts converge', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'hits' });
    await postSigned(app, '/api/v1/webhooks/alerts', { ...crashLoop, namespace: 'hits' });
    await postSigned(app, '/api/v1/webhooks/alerts', { ...crashLoop, namespace: 'hits' });
    await app.close();
    expect(tg.message(card.messageId)!.text).toContain('[x3]');
  });
});
