import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { findApproval } from '../../src/features/approvals/approval-records.js';
import { cardsOfApproval } from '../../src/features/cards/card-records.js';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { followNewIncident } from '../../src/features/escalation/incident-followup.js';
import { chatEnv, press } from '../chat/chat-flow.js';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { followUpCompleted } from '../helpers/follow-up-jobs.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const firing = (target: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'card-cut-off',
  target_resource: target,
});

/** The chat's messages that are cards of the approval (by their buttons). */
const cardMessages = (tg: TelegramStandIn, approvalId: string) =>
  tg
    .messages()
    .filter((message) =>
      message.reply_markup?.inline_keyboard
        .flat()
        .some((button) => button.callback_data.includes(`:${approvalId}:`)),
    );

/** The follow-up job's handler once more, as a retry runs it (the repair is not the point). */
const runFollowUpAgain = (app: FastifyInstance, incidentId: string) =>
  followNewIncident(app.services, createCardSender(app.services), async () => {}, incidentId);

/** A killed run's lease ends (JOB_LEASE_MS, 2 s here) and BullMQ's check finds it. */
const JOB_LEASE_MS = '2000';
const RERUN_MS = 20_000;

/**
 * A real server process opens an incident and is killed (SIGKILL) while the chat holds its
 * card's sendMessage; the test app then restarts on the same data, where the follow-up job
 * runs again once the killed run's lease has run out.
 */
async function killWhileCardIsSent(
  backend: 'embedded' | 'distributed',
  tg: TelegramStandIn,
  carriedOut: 'at once' | 'on release',
  target: string,
): Promise<{ setup: TestApp; incidentId: string; approvalId: string }> {
  const setup = await buildTestApp({ backend, env: chatEnv(tg, { JOB_LEASE_MS }) });
  await setup.close();
  const held = tg.holdNext('sendMessage', { carriedOut });
  const { child, url } = await startServerProcess({
    ...setup.env,
    PORT: '0',
    LOG_LEVEL: 'info',
    NODE_ENV: 'test',
  });
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const created = await fetch(`${url}/api/v1/webhooks/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(firing(target)),
  }).then((response) => response.json() as Promise<Record<string, string>>);
  expect(created).toMatchObject({ status: 'created' });
  await held.arrived;
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return { setup, incidentId: created.incident_id!, approvalId: created.approval_id! };
}

/**
 * CONTRACT, Under races, crashes and abuse, "Exactly once outside": a chat card is sent once
 * per approval across retries and `kill -9`; a send cut off mid-flight may be repeated once at
 * most, since the Bot API gives no way to tell whether it landed.
 */
describe.each(backends())('a card cut off by a kill on %s', (backend) => {
  it(
    'reaches the chat once the follow-up runs again, when the cut-off send never landed',
    async () => {
      const tg = await startTelegramStandIn();
      const killed = await killWhileCardIsSent(backend, tg, 'on release', 'cut-off-1');
      expect(cardMessages(tg, killed.approvalId)).toHaveLength(0);

      const { app } = await buildTestApp({ reuse: killed.setup });
      const [card] = await waitFor(
        async () => {
          const shown = cardMessages(tg, killed.approvalId);
          return shown.length > 0 ? shown : undefined;
        },
        { timeoutMs: RERUN_MS, intervalMs: 100, what: 'the card sent by the job run again' },
      );
      const jobId = `follow-up-${killed.incidentId}`;
      await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
        timeoutMs: RERUN_MS,
        what: 'the follow-up run again completing',
      });
      expect(cardMessages(tg, killed.approvalId)).toHaveLength(1);
      const rows = await cardsOfApproval(app.services.store.db, killed.approvalId);
      expect(rows.map((row) => [row.message_id, row.send_attempts])).toEqual([
        [card!.message_id, 2],
      ]);

      // Run once more after the card was sent (its message id recorded): no card at all.
      const sends = tg.calls('sendMessage').length;
      await runFollowUpAgain(app, killed.incidentId);
      expect(tg.calls('sendMessage')).toHaveLength(sends);
      expect(cardMessages(tg, killed.approvalId)).toHaveLength(1);
      await tg.close();
    },
    RERUN_MS * 2,
  );

  it(
    'is sent once more at most when the cut-off send did land, with the same usable nonce',
    async () => {
      const tg = await startTelegramStandIn();
      const killed = await killWhileCardIsSent(backend, tg, 'at once', 'cut-off-2');
      expect(cardMessages(tg, killed.approvalId)).toHaveLength(1);

      const { app } = await buildTestApp({ reuse: killed.setup });
      const jobId = `follow-up-${killed.incidentId}`;
      await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
        timeoutMs: RERUN_MS,
        what: 'the follow-up run again completing',
      });
      const shown = cardMessages(tg, killed.approvalId);
      expect(shown).toHaveLength(2);
      // One card, shown twice: its buttons name the same nonce, usable once from either.
      expect(shown[1]!.reply_markup).toEqual(shown[0]!.reply_markup);

      // Any further run sends nothing more: the second send is on record.
      await runFollowUpAgain(app, killed.incidentId);
      expect(cardMessages(tg, killed.approvalId)).toHaveLength(2);

      const nonce = shown[0]!.reply_markup!.inline_keyboard[0]![0]!.callback_data.split(':')[2]!;
      const approved = await press(app, 'approve', { approvalId: killed.approvalId, nonce });
      expect(approved.statusCode).toBe(200);
      await waitFor(
        async () => {
          const approval = await findApproval(app.services.store.db, killed.approvalId);
          return approval && approval.status !== 'pending' ? approval : undefined;
        },
        { what: 'the approval decided from the first message' },
      );
      await tg.close();
    },
    RERUN_MS * 2,
  );

  it('is sent once more by one of two runs racing on the same cut-off card', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('race-1'))).json();
    const jobId = `follow-up-${created.incident_id}`;
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the first follow-up completing',
    });
    expect(cardMessages(tg, created.approval_id)).toHaveLength(1);
    // The row as a send cut off by a crash leaves it: written, no message id, no outcome.
    await app.services.store.db
      .updateTable('chat_cards')
      .set({ message_id: null })
      .where('approval_id', '=', created.approval_id)
      .execute();

    const run = () => runFollowUpAgain(app, created.incident_id);
    await Promise.all([run(), run(), run()]);
    expect(cardMessages(tg, created.approval_id)).toHaveLength(2);
    const rows = await cardsOfApproval(app.services.store.db, created.approval_id);
    expect(rows.map((row) => row.send_attempts)).toEqual([2]);
    expect(rows[0]!.message_id).not.toBeNull();

    // Cut off again (a second crash): never a third send.
    await app.services.store.db
      .updateTable('chat_cards')
      .set({ message_id: null })
      .where('approval_id', '=', created.approval_id)
      .execute();
    await run();
    expect(cardMessages(tg, created.approval_id)).toHaveLength(2);
    await tg.close();
  });

  it('is not sent again by a run after the chat refused it (its failure on record)', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    tg.failNext('sendMessage', 'Bad Request: chat not found', 400);
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('refused-1'))).json();
    const jobId = `follow-up-${created.incident_id}`;
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the first follow-up completing',
    });
    const rows = await cardsOfApproval(app.services.store.db, created.approval_id);
    expect(rows.map((row) => [row.message_id, row.send_outcome])).toEqual([[null, 'failed']]);
    const sends = tg.calls('sendMessage').length;
    await runFollowUpAgain(app, created.incident_id);
    expect(tg.calls('sendMessage')).toHaveLength(sends);
    await tg.close();
  });

  it('is not sent beside the queue by a run while it waits out a 429', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    tg.rateLimitNext(2);
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('waiting-1'))).json();
    const jobId = `follow-up-${created.incident_id}`;
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the first follow-up completing',
    });
    const [row] = await cardsOfApproval(app.services.store.db, created.approval_id);
    expect(row).toMatchObject({ message_id: null, send_outcome: 'waiting' });
    await runFollowUpAgain(app, created.incident_id);
    await waitFor(
      async () => (cardMessages(tg, created.approval_id).length > 0 ? true : undefined),
      { timeoutMs: 10_000, what: 'the waiting card sent after the wait' },
    );
    expect(cardMessages(tg, created.approval_id)).toHaveLength(1);
    await tg.close();
  });
});
