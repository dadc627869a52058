import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { chatEnv, openIncidentCard } from '../chat/chat-flow.js';
import { buildTestApp } from '../helpers/build-app.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const OPERATORS = 'alice:alice-key,bob:bob-key';
const alice = { 'x-operator-id': 'alice', 'x-operator-key': 'alice-key' };
const bob = { 'x-operator-id': 'bob', 'x-operator-key': 'bob-key' };

function alert(severity: string, target: string) {
  return {
    alert_name: 'KubePodCrashLooping',
    severity,
    namespace: 'console-decisions',
    target_resource: target,
    message: 'restarting',
  };
}

const decide = (
  app: FastifyInstance,
  approvalId: string,
  decision: string,
  headers: Record<string, string>,
) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/approvals/${approvalId}/decision`,
    payload: { decision },
    headers,
  });

/**
 * An operator of OPERATOR_KEYS approves or rejects from the console; the decision is
 * `console_<id>` on channel `console`, under the chat's rules, and the chat card shows it.
 */
describe('decisions from the console', () => {
  it('records an approval as console_<operator> on channel console and edits the chat card', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ env: chatEnv(tg, { OPERATOR_KEYS: OPERATORS }) });
    const card = await openIncidentCard(app, tg, alert('warning', 'svc-approve'));
    const response = await decide(app, card.approvalId, 'approve', alice);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      ok: true,
      message: 'Approved',
      status: 'approved',
      actor: 'console_alice',
      channel: 'console',
    });
    const detail = (await app.inject(`/api/v1/approvals/${card.approvalId}`)).json();
    expect(detail.decisions[0]).toMatchObject({
      actor: 'console_alice',
      channel: 'console',
      decision: 'approve',
    });
    const edited = await waitFor(
      async () => {
        const message = tg.message(card.messageId);
        return message && message.edits > 0 ? message : undefined;
      },
      { what: 'the card edited' },
    );
    expect(edited.text).toContain('console_alice');
    expect(edited.reply_markup).toBeUndefined();
    // The execution it starts is recorded on the console's channel too.
    const moves = await waitFor(
      async () => {
        const { decisions } = (await app.inject(`/api/v1/approvals/${card.approvalId}`)).json();
        const moved = decisions.filter((d: { decision: string }) => d.decision === 'move');
        return moved.length > 0 ? moved : undefined;
      },
      { what: 'the execution moves' },
    );
    expect(moves[0]).toMatchObject({ actor: 'console_alice', channel: 'console' });
    // Nothing changes a decided approval (by now its dry-run execution may have moved it on).
    const again = await decide(app, card.approvalId, 'reject', bob);
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/^Approval already (approved|executing|executed)$/);
  });

  it('needs two distinct operators for a critical approval', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ env: chatEnv(tg, { OPERATOR_KEYS: OPERATORS }) });
    const card = await openIncidentCard(app, tg, alert('P0', 'svc-critical'));
    expect((await decide(app, card.approvalId, 'approve', alice)).json()).toMatchObject({
      status: 'pending',
    });
    // CONTRACT, Approvals: the same signer again changes nothing.
    const again = await decide(app, card.approvalId, 'approve', alice);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      detail: 'Already signed by console_alice',
      code: 'already_signed',
    });
    expect((await app.inject(`/api/v1/approvals/${card.approvalId}`)).json()).toMatchObject({
      status: 'pending',
    });
    expect((await decide(app, card.approvalId, 'approve', bob)).json()).toMatchObject({
      status: 'approved',
    });
  });

  it('refuses without valid operator credentials, and names a missing approval', async () => {
    const { app } = await buildTestApp({
      env: { OPERATOR_KEYS: OPERATORS, SIGNAL_CONSUMER: 'false' },
    });
    const created = (
      await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/alerts',
        payload: alert('warning', 'svc-refused'),
      })
    ).json();
    const attempts: Record<string, string>[] = [
      {},
      { 'x-operator-id': 'alice' },
      { 'x-operator-id': 'alice', 'x-operator-key': 'bob-key' },
      { 'x-operator-id': 'mallory', 'x-operator-key': 'alice-key' },
    ];
    for (const headers of attempts) {
      const response = await decide(app, created.approval_id, 'approve', headers);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        detail: 'Invalid operator credentials',
        code: 'operator_invalid',
      });
    }
    const approval = (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json();
    expect(approval).toMatchObject({ status: 'pending', decisions: [] });

    expect((await decide(app, created.approval_id, 'maybe', alice)).statusCode).toBe(422);
    const missing = await decide(app, '00000000-0000-4000-8000-000000000000', 'reject', alice);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      code: 'approval_not_found',
      detail: 'Approval not found: 00000000-0000-4000-8000-000000000000',
    });
  });

  it('needs the console token too when CONSOLE_TOKEN is set', async () => {
    const { app } = await buildTestApp({
      env: { OPERATOR_KEYS: OPERATORS, CONSOLE_TOKEN: 'console-secret', SIGNAL_CONSUMER: 'false' },
    });
    const response = await decide(app, 'any', 'approve', alice);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ detail: 'Unauthorized', code: 'unauthorized' });
  });
});
