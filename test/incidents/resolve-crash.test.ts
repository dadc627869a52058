import { describe, expect, it } from 'vitest';
import { decisionsOf } from '../../src/features/approvals/approval-decision-records.js';
import { findApproval } from '../../src/features/approvals/approval-records.js';
import { chatEnv, openIncidentCard } from '../chat/chat-flow.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` };
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

const firing = (target: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'resolve-crash',
  target_resource: target,
});

/**
 * CONTRACT, Under races, crashes and abuse, Resolving: "The incident's status, its approval's
 * expiry and the timeline entry commit together." A process killed (SIGKILL) between them
 * must not leave a resolved incident whose approval can still be approved, and whoever comes
 * next finishes the move.
 */
describe.each(backends())('a resolve killed half-way on %s', (backend) => {
  it('leaves no resolved incident with a pending approval, and the retry finishes it', async () => {
    const setup = await buildTestApp({ backend, env: ENV });
    const created = (
      await postSigned(setup.app, '/api/v1/webhooks/alerts', firing('crash-1'))
    ).json();
    expect(created).toMatchObject({ status: 'created' });
    await setup.close();

    const { child, url } = await startServerProcess({
      ...setup.env,
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      TEST_CRASH_AT: 'resolve:before-approval-expiry',
    });
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const cut = await fetch(`${url}/api/v1/incidents/${created.incident_id}/resolve`, {
      method: 'POST',
      headers: alice,
    }).then(
      (response) => response.status,
      () => 'cut off',
    );
    expect(cut).toBe('cut off');
    expect(await exited).toBe('SIGKILL');

    const { app } = await buildTestApp({ reuse: setup });
    const before = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
    const approvalBefore = await findApproval(app.services.store.db, created.approval_id);
    // All or nothing: the crash left it open and pending, or resolved and expired.
    if (before.status === 'resolved') expect(approvalBefore?.status).toBe('expired');
    else expect(approvalBefore?.status).toBe('pending');

    const retry = await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${created.incident_id}/resolve`,
      headers: alice,
    });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().timeline.map((entry: { event: string }) => entry.event)).toEqual([
      'opened',
      'resolved',
    ]);
    expect((await findApproval(app.services.store.db, created.approval_id))?.status).toBe(
      'expired',
    );
    const decision = await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${created.approval_id}/decision`,
      headers: alice,
      payload: { decision: 'approve' },
    });
    expect(decision.statusCode).toBe(409);
    expect(decision.json()).toMatchObject({
      detail: 'Approval already expired',
      code: 'approval_already_decided',
    });
  });

  it('refuses to approve the approval of a resolved incident, and expires it', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', firing('late-1'))).json();
    // The state a resolve cut off between its steps left before they committed together.
    await app.services.store.db
      .updateTable('incidents')
      .set({ status: 'resolved', resolved_by: 'console_alice', resolved_at: Date.now() })
      .where('id', '=', created.incident_id)
      .execute();
    const decision = await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${created.approval_id}/decision`,
      headers: alice,
      payload: { decision: 'approve' },
    });
    expect(decision.statusCode).toBe(409);
    expect(decision.json()).toMatchObject({
      detail: 'Approval already expired',
      code: 'approval_already_decided',
    });
    expect((await findApproval(app.services.store.db, created.approval_id))?.status).toBe(
      'expired',
    );
    const decisions = await decisionsOf(app.services.store.db, created.approval_id);
    expect(decisions.map((row) => [row.decision, row.actor, row.to_status])).toEqual([
      ['move', 'console_alice', 'expired'],
    ]);
  });

  /**
   * "a crash at any instant leaves no half-done state that nobody completes": the job that
   * closes the approval's cards commits with the resolve, so a process killed right after
   * the commit, before it edited the card, leaves the job to the next process to run.
   */
  it('closes the card after a kill right after the resolve committed, once restarted', async () => {
    const tg = await startTelegramStandIn();
    const setup = await buildTestApp({ backend, env: { ...chatEnv(tg), ...ENV } });
    const card = await openIncidentCard(setup.app, tg, firing('crash-card-1'));
    expect(tg.message(card.messageId)?.reply_markup).toBeDefined();
    await setup.close();

    const { child, url } = await startServerProcess({
      ...setup.env,
      PORT: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      TEST_CRASH_AT: 'resolve:after-commit',
    });
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const cut = await fetch(`${url}/api/v1/incidents/${card.incidentId}/resolve`, {
      method: 'POST',
      headers: alice,
    }).then(
      (response) => response.status,
      () => 'cut off',
    );
    expect(cut).toBe('cut off');
    expect(await exited).toBe('SIGKILL');
    // Killed before its edit: the card still shows its buttons.
    expect(tg.message(card.messageId)?.reply_markup).toBeDefined();

    const { app } = await buildTestApp({ reuse: setup });
    expect((await findApproval(app.services.store.db, card.approvalId))?.status).toBe('expired');
    const closed = await waitFor(
      async () => {
        const message = tg.message(card.messageId);
        return message && message.reply_markup === undefined ? message : undefined;
      },
      { timeoutMs: 15_000, what: 'the card closed by the restarted process' },
    );
    expect(closed.text).toContain('Incident resolved');
    expect(closed.text).toContain('console_alice');
    await tg.close();
  });
});
