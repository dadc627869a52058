import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { chatEnv, openIncidentCard } from '../chat/chat-flow.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';

const KEY = 'alice-key-0123456789';
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };
const alert = (status = 'firing') => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'effects',
  target_resource: 'checkout-1',
  status,
});

/** CONTRACT, Incident lifecycle: what resolving does to the cards, and the feed's events. */
describe.each(backends())('lifecycle effects on %s', (backend) => {
  it('resolving edits the approval card to say so, without buttons', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ backend, env: chatEnv(tg) });
    const card = await openIncidentCard(app, tg, alert());
    expect(tg.message(card.messageId)?.reply_markup).toBeDefined();
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved'));
    expect(tg.message(card.messageId)?.reply_markup).toBeUndefined();
    expect(tg.message(card.messageId)?.text).toContain('Incident resolved');
    await tg.close();
  });

  it('puts acknowledged, resolved and reopened on the feed with the actor', async () => {
    const { app } = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    expect((app.server.address() as AddressInfo).port).toBeGreaterThan(0);
    const feed = await openFeed(app);
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', alert())).json();
    const id = created.incident_id;
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${id}/acknowledge`,
      headers: alice,
    });
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved'));
    await postSigned(app, '/api/v1/webhooks/alerts', alert());
    await feed.until(
      (frames) => frames.some((frame) => frame.event.type === 'incident.reopened'),
      'the reopening on the feed',
    );
    const moves = feed.frames
      .map((frame) => frame.event)
      .filter((event) => /^incident\.(acknowledged|resolved|reopened)$/.test(event.type))
      .map(({ type, incident_id, actor }) => ({ type, incident_id, actor }));
    expect(moves).toEqual([
      { type: 'incident.acknowledged', incident_id: id, actor: 'console_alice' },
      { type: 'incident.resolved', incident_id: id, actor: 'alert' },
      { type: 'incident.reopened', incident_id: id, actor: 'alert' },
    ]);
    await feed.close();
  });
});
