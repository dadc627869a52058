import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  chatEnv,
  openIncidentCard,
  press,
  SECOND_SIGNER,
  STRANGER,
  WHITELISTED,
} from './chat-flow.js';

const KEY = 'bob-key-0123456789ab';

/** Sent messages whose buttons name this approval. */
function cardsOf(tg: TelegramStandIn, approvalId: string) {
  return tg
    .calls('sendMessage')
    .filter((call) =>
      call.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data.includes(approvalId),
    );
}

const critical = (namespace: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'P0',
  namespace,
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
});

/** The two-signer flow at its edges. */
describe.each(backends())('second signers on %s', (backend) => {
  it('the same chat signer again gets ok false "Already signed by", and no new card', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const card = await openIncidentCard(app, tg, critical('same-signer'));
    expect((await press(app, 'approve', card)).json()).toMatchObject({ status: 'pending' });
    const second = await waitFor(async () => cardsOf(tg, card.approvalId)[1]);
    const nonce = second.body.reply_markup!.inline_keyboard![0]![0]!.callback_data.split(':')[2]!;
    const again = await press(app, 'approve', { approvalId: card.approvalId, nonce });
    expect(again.json()).toEqual({ ok: false, message: 'Already signed by tg_111' });
    expect(cardsOf(tg, card.approvalId)).toHaveLength(2);
    await tg.close();
  });

  it('a chat signer and a console signer at the same moment leave no card with live buttons', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({
      backend,
      env: chatEnv(tg, { OPERATOR_KEYS: `bob:${KEY}` }),
    });
    for (let run = 0; run < 6; run++) {
      const card = await openIncidentCard(app, tg, critical(`race-${run}`));
      const [chat, console] = await Promise.all([
        press(app, 'approve', card),
        app.inject({
          method: 'POST',
          url: `/api/v1/approvals/${card.approvalId}/decision`,
          headers: { 'x-operator-id': 'bob', 'x-operator-key': KEY },
          payload: { decision: 'approve' },
        }),
      ]);
      expect(chat.json().ok).toBe(true);
      expect(console.statusCode).toBe(200);
      const approval = (await app.inject(`/api/v1/approvals/${card.approvalId}`)).json();
      expect(['approved', 'executing', 'executed']).toContain(approval.status);
      // Every card of the approval ends without buttons (edited once it was decided).
      const rows = await app.services.store.db
        .selectFrom('chat_cards')
        .select('message_id')
        .where('approval_id', '=', card.approvalId)
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.message_id).not.toBeNull();
        expect(tg.message(row.message_id!)?.reply_markup, `run ${run}`).toBeUndefined();
      }
    }
    await tg.close();
  });

  // CONTRACT, Under races, crashes and abuse: a refused callback consumes no nonce.
  it('a refused press leaves the card usable: the second signer approves with it', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const card = await openIncidentCard(app, tg, critical('refused-keeps-nonce'));
    expect((await press(app, 'approve', card)).json()).toMatchObject({ status: 'pending' });
    const second = await waitFor(async () => cardsOf(tg, card.approvalId)[1]);
    const nonce = second.body.reply_markup!.inline_keyboard![0]![0]!.callback_data.split(':')[2]!;
    const fresh = { approvalId: card.approvalId, nonce };
    expect((await press(app, 'approve', fresh)).json()).toEqual({
      ok: false,
      message: 'Already signed by tg_111',
    });
    expect((await press(app, 'approve', fresh, STRANGER)).json()).toEqual({
      ok: false,
      message: 'User not authorized',
    });
    const row = await app.services.store.db
      .selectFrom('chat_cards')
      .select('consumed_at')
      .where('nonce', '=', nonce)
      .executeTakeFirstOrThrow();
    expect(row.consumed_at).toBeNull();
    expect((await press(app, 'approve', fresh, SECOND_SIGNER)).json()).toMatchObject({
      ok: true,
      status: 'approved',
      execution_triggered: true,
    });
    // Used by the decision that counted: once, as before.
    expect((await press(app, 'reject', fresh, SECOND_SIGNER)).json()).toEqual({
      ok: false,
      message: 'Already processed',
    });
    await tg.close();
  });

  it('refusals racing the second signer on one card never take it from them', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const card = await openIncidentCard(app, tg, critical('refusal-race'));
    expect((await press(app, 'approve', card)).json()).toMatchObject({ status: 'pending' });
    const second = await waitFor(async () => cardsOf(tg, card.approvalId)[1]);
    const nonce = second.body.reply_markup!.inline_keyboard![0]![0]!.callback_data.split(':')[2]!;
    const fresh = { approvalId: card.approvalId, nonce };
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => press(app, 'approve', fresh)),
      press(app, 'approve', fresh, SECOND_SIGNER),
      ...Array.from({ length: 10 }, () => press(app, 'approve', fresh)),
    ]);
    expect(answers[10]!.json()).toMatchObject({ ok: true, status: 'approved' });
    for (const [index, answer] of answers.entries()) {
      if (index === 10) continue;
      expect(['Already signed by tg_111', 'Already processed']).toContain(answer.json().message);
    }
    await tg.close();
  });

  // CONTRACT, Under races, crashes and abuse: whatever the order of a first signature and the
  // sending of the first card, the card the chat ends up showing names the first signer.
  it('a first signature while the first card is still being sent ends on the card', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({
      backend,
      env: chatEnv(tg, { OPERATOR_KEYS: `bob:${KEY}` }),
    });
    const slow = tg.holdNext('sendMessage');
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', critical('slow-first-card'))
    ).json();
    const approvalId: string = created.approval_id;
    await slow.arrived;
    let signed = false;
    const signing = app
      .inject({
        method: 'POST',
        url: `/api/v1/approvals/${approvalId}/decision`,
        headers: { 'x-operator-id': 'bob', 'x-operator-key': KEY },
        payload: { decision: 'approve' },
      })
      .finally(() => {
        signed = true;
      });
    const cardRows = () =>
      app.services.store.db
        .selectFrom('chat_cards')
        .select(['nonce', 'message_id'])
        .where('approval_id', '=', approvalId)
        .execute();
    // The signing path is done with the first card: it answered, or queued a card after it.
    await waitFor(async () => signed || (await cardRows()).length > 1 || undefined);
    slow.release();
    expect((await signing).json()).toMatchObject({ status: 'pending' });
    await waitFor(async () => {
      const rows = await cardRows();
      return rows.every((row) => row.message_id !== null) ? rows : undefined;
    });
    const first = tg.message(1)!;
    await waitFor(async () => (first.reply_markup ? undefined : true), {
      what: 'the first card edited',
    });
    expect(first.text).toContain(`Approval: ${approvalId}`);
    expect(first.text).toContain('First of two signatures by console_bob');
    // What the chat shows of the approval names the first signer, and one card is left to press.
    const shown = (await cardRows()).map((row) => tg.message(row.message_id!)!);
    expect(shown.every((message) => message.text.includes('console_bob'))).toBe(true);
    expect(shown.filter((message) => message.reply_markup)).toHaveLength(1);
    await tg.close();
  });
});

/**
 * The other order, fixed with a row lock held from a second connection: the signing path
 * reads the first card while it has no message id, and the message id is saved before the
 * signing path saves the signature on the card's row.
 */
describe.runIf(backends().includes('distributed'))('second signers on PostgreSQL', () => {
  it('a message id saved between the signature and its save on the card still ends on the card', async () => {
    const tg = await startTelegramStandIn();
    const { app, env } = await buildTestApp({
      backend: 'distributed',
      env: chatEnv(tg, { OPERATOR_KEYS: `bob:${KEY}` }),
    });
    const url = new URL(env.DATABASE_URL!);
    const schema = url.searchParams.get('schema')!;
    url.searchParams.delete('schema');
    const locker = new pg.Client({ connectionString: url.toString() });
    await locker.connect();
    const waitingOn = async (fragment: string) => {
      // Inside the locking transaction the activity view is a snapshot unless cleared.
      await locker.query('select pg_stat_clear_snapshot()');
      const { rows } = await locker.query(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like $1`,
        [`%${fragment}%`],
      );
      return rows[0].n > 0 ? true : undefined;
    };
    try {
      const slow = tg.holdNext('sendMessage');
      const created = (
        await postSigned(app, '/api/v1/webhooks/alerts', critical('message-id-first'))
      ).json();
      const approvalId: string = created.approval_id;
      await slow.arrived;
      const [card] = await app.services.store.db
        .selectFrom('chat_cards')
        .select('nonce')
        .where('approval_id', '=', approvalId)
        .execute();
      await locker.query('begin');
      await locker.query(`select 1 from "${schema}".chat_cards where nonce = $1 for update`, [
        card!.nonce,
      ]);
      slow.release();
      await waitFor(() => waitingOn('set "message_id" = $1'), { what: 'the message id waiting' });
      const signing = app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${approvalId}/decision`,
        headers: { 'x-operator-id': 'bob', 'x-operator-key': KEY },
        payload: { decision: 'approve' },
      });
      await waitFor(() => waitingOn('"message_id" is null'), { what: 'the signature waiting' });
      await locker.query('commit');
      expect((await signing).json()).toMatchObject({ status: 'pending' });
      const first = tg.message(1)!;
      await waitFor(async () => (first.reply_markup ? undefined : true), {
        what: 'the first card edited',
      });
      expect(first.text).toContain(`Approval: ${approvalId}`);
      expect(first.text).toContain('First of two signatures by console_bob');
    } finally {
      await locker.end();
      await tg.close();
    }
  });

  it('two replicas share one card: refusals on either leave it, one decision uses it', async () => {
    const tg = await startTelegramStandIn();
    const first = await buildTestApp({ backend: 'distributed', env: chatEnv(tg) });
    const second = await buildTestApp({ reuse: first });
    const card = await openIncidentCard(first.app, tg, critical('two-replicas'));
    expect((await press(first.app, 'approve', card)).json()).toMatchObject({ status: 'pending' });
    const fresh = await waitFor(async () => cardsOf(tg, card.approvalId)[1]);
    const nonce = fresh.body.reply_markup!.inline_keyboard![0]![0]!.callback_data.split(':')[2]!;
    const target = { approvalId: card.approvalId, nonce };
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        press(
          i % 2 ? second.app : first.app,
          'approve',
          target,
          i % 3 ? WHITELISTED : SECOND_SIGNER,
        ),
      ),
    );
    const messages = answers.map((answer) => answer.json().message);
    expect(messages.filter((m) => m === 'Approved')).toHaveLength(1);
    for (const message of messages.filter((m) => m !== 'Approved')) {
      expect(['Already signed by tg_111', 'Already processed']).toContain(message);
    }
    await tg.close();
  });
});
