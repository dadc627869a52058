import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { cardsOfApproval } from '../../src/features/cards/card-records.js';
import { INCIDENT_FOLLOW_UP_JOB } from '../../src/features/escalation/incident-followup.js';
import { chatEnv } from '../chat/chat-flow.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { followUpCompleted, holdJobsInTransaction } from '../helpers/follow-up-jobs.js';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'bob-key-0123456789ab';

const alert = (namespace: string, severity: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity,
  namespace,
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
});

/**
 * Opens an incident whose follow-up (and so its first card) waits, as behind a queue outage:
 * refused by Redis (the outbox keeps it), or on the SQL queue committed but not yet due.
 * `release` lets it run and waits until it is done.
 */
async function openWithHeldFollowUp(app: FastifyInstance, body: Record<string, unknown>) {
  const { jobs } = app.services;
  const enqueue = jobs.enqueue.bind(jobs);
  vi.spyOn(jobs, 'enqueue').mockImplementation(async (name, ...rest) => {
    if (name === INCIDENT_FOLLOW_UP_JOB.name) throw new Error('queue unavailable (test)');
    return enqueue(name, ...rest);
  });
  const held = holdJobsInTransaction(app);
  const created = (await postSigned(app, '/api/v1/webhooks/alerts', body)).json();
  const jobId = `follow-up-${created.incident_id}`;
  return {
    approvalId: created.approval_id as string,
    async release() {
      vi.restoreAllMocks();
      await held.release(app, jobId, INCIDENT_FOLLOW_UP_JOB.name);
      await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
        what: 'the follow-up run after the outage',
        timeoutMs: 15_000,
      });
    },
  };
}

const cardsOf = (tg: TelegramStandIn, approvalId: string) =>
  tg
    .calls('sendMessage')
    .filter(
      (call) =>
        call.body.text?.includes('Approval required') &&
        call.body.text?.includes(`Approval: ${approvalId}`),
    );

const decide = (app: FastifyInstance, approvalId: string, decision: 'approve' | 'reject') =>
  app.inject({
    method: 'POST',
    url: `/api/v1/approvals/${approvalId}/decision`,
    headers: { 'x-operator-id': 'bob', 'x-operator-key': KEY },
    payload: { decision },
  });

/**
 * CONTRACT, Under races, crashes and abuse: "Whatever the order of a first signature and the
 * sending of the first card, the card that the chat ends up showing names the first signer";
 * and a decided approval gets no live buttons.
 */
describe.each(backends())('a decision before the first card on %s', (backend) => {
  it('a first signature before the follow-up: the card asks for the second, naming the first', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({
      backend,
      env: chatEnv(tg, { OPERATOR_KEYS: `bob:${KEY}` }),
    });
    const held = await openWithHeldFollowUp(app, alert('signed-first', 'P0'));
    expect(tg.calls('sendMessage')).toEqual([]);
    expect((await decide(app, held.approvalId, 'approve')).json()).toMatchObject({
      status: 'pending',
    });
    await held.release();
    const sent = cardsOf(tg, held.approvalId);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.text).toContain('Second signature needed (signed by console_bob)');
    // The second signer still has buttons to press.
    expect(sent[0]!.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data).toContain(
      held.approvalId,
    );
    await tg.close();
  });

  for (const [decision, shown] of [
    ['approve', '✅ Approved by console_bob'],
    ['reject', '❌ Rejected by console_bob'],
  ] as const) {
    it(`${decision} before the follow-up: the card has no buttons and says its status`, async () => {
      const tg = await startTelegramStandIn();
      const { app } = await buildTestApp({
        backend,
        env: chatEnv(tg, { OPERATOR_KEYS: `bob:${KEY}` }),
      });
      const held = await openWithHeldFollowUp(app, alert(`${decision}-first`, 'warning'));
      const answer = (await decide(app, held.approvalId, decision)).json();
      expect(answer.status).not.toBe('pending');
      await held.release();
      // The approval's cards (an approved one is also followed by its repair's report).
      const sent = cardsOf(tg, held.approvalId);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.body.reply_markup).toBeUndefined();
      expect(sent[0]!.body.text).toContain(shown);
      expect(sent[0]!.body.text).toMatch(/Status: (approved|executing|executed|failed|rejected)/);
      // Its row records it: a follow-up run again sends nothing more.
      const rows = await cardsOfApproval(app.services.store.db, held.approvalId);
      expect(rows).toHaveLength(1);
      await tg.close();
    });
  }
});
