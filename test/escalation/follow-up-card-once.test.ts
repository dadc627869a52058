import { describe, expect, it } from 'vitest';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { followNewIncident } from '../../src/features/escalation/incident-followup.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { followUpCompleted } from '../helpers/follow-up-jobs.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A follow-up job runs again when a later step fails (the repair evaluation, a crash). Its
 * card step must not push a second card, even when the first push failed: the chat may
 * have shown it all the same (docs/reliability.md: timeouts are not retried for that reason).
 */
describe.each(backends())('a follow-up run again on %s', (backend) => {
  it('does not push a second card after a push that failed', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({
      backend,
      env: {
        SIGNAL_CONSUMER: 'false',
        CHAT_POLLING: 'false',
        CHAT_BOT_TOKEN: tg.token,
        CHAT_CHAT_ID: '4242',
        CHAT_API_BASE: tg.apiBase,
      },
    });
    tg.failNext('sendMessage', 'Bad Request: chat not found', 400);
    const response = await postSigned(app, '/api/v1/webhooks/alerts', {
      alert_name: 'KubePodCrashLooping',
      severity: 'critical',
      target_resource: 'checkout-7d9f8b6c5-x2x4z',
      namespace: 'card-once',
    });
    const { incident_id: incidentId } = response.json();
    const jobId = `follow-up-${incidentId}`;
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the first follow-up run completing',
    });
    expect(tg.calls('sendMessage')).toHaveLength(1);

    // The job's handler once more, as a retry runs it (the evaluation is not the point here).
    const cards = createCardSender(app.services);
    await followNewIncident(app.services, cards, async () => {}, incidentId);
    expect(tg.calls('sendMessage')).toHaveLength(1);
    await tg.close();
  });
});
