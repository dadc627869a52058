import { describe, expect, it } from 'vitest';
import { decisionsOf } from '../../src/features/approvals/approval-decision-records.js';
import { findApproval } from '../../src/features/approvals/approval-records.js';
import { chatEnv, openIncidentCard } from '../chat/chat-flow.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';

const KEY = 'alice-key-0123456789';
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

/**
 * CONTRACT, Under races, crashes and abuse, Resolving: a resolved incident's approval is
 * expired, never approved or rejected. An approval found still pending for an incident
 * already resolved (the state a resolve cut off before its steps committed together left)
 * is expired by whichever decision finds it, approve or reject, in its resolver's name; the
 * feed hears of the expiry and the cards close, as after the resolve itself.
 */
describe.each(backends())('a decision on the approval of a resolved incident on %s', (backend) => {
  it.each(['approve', 'reject'])(
    '%s: expires it, refuses, tells the feed, closes the card',
    async (decision) => {
      const tg = await startTelegramStandIn();
      const { app } = await buildTestApp({
        backend,
        env: chatEnv(tg, { OPERATOR_KEYS: `alice:${KEY}` }),
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const card = await openIncidentCard(app, tg, {
        alert_name: 'KubePodCrashLooping',
        severity: 'warning',
        namespace: 'resolved-decision',
        target_resource: `late-${decision}`,
      });
      expect(tg.message(card.messageId)?.reply_markup).toBeDefined();
      const feed = await openFeed(app);
      await app.services.store.db
        .updateTable('incidents')
        .set({ status: 'resolved', resolved_by: 'console_bob', resolved_at: Date.now() })
        .where('id', '=', card.incidentId)
        .execute();

      const response = await app.inject({
        method: 'POST',
        url: `/api/v1/approvals/${card.approvalId}/decision`,
        headers: alice,
        payload: { decision },
      });
      expect(response.statusCode).toBe(409);
      expect(response.json()).toMatchObject({
        detail: 'Approval already expired',
        code: 'approval_already_decided',
      });
      expect((await findApproval(app.services.store.db, card.approvalId))?.status).toBe('expired');
      const decisions = await decisionsOf(app.services.store.db, card.approvalId);
      expect(decisions.map((row) => [row.decision, row.actor, row.to_status])).toEqual([
        ['move', 'console_bob', 'expired'],
      ]);

      await feed.until(
        (frames) =>
          frames.some(
            (frame) =>
              frame.event.type === 'approval.updated' &&
              frame.event.approval_id === card.approvalId,
          ),
        'the expiry on the feed',
      );
      const updates = feed.frames
        .map((frame) => frame.event)
        .filter((event) => event.type === 'approval.updated')
        .map(({ approval_id, status, actor, channel }) => ({
          approval_id,
          status,
          actor,
          channel,
        }));
      expect(updates).toEqual([
        {
          approval_id: card.approvalId,
          status: 'expired',
          actor: 'console_bob',
          channel: 'lifecycle',
        },
      ]);
      expect(tg.message(card.messageId)?.reply_markup).toBeUndefined();
      expect(tg.message(card.messageId)?.text).toContain('Incident resolved');
      await feed.close();
      await tg.close();
    },
  );
});
