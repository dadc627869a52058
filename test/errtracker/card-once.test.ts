import { describe, expect, it } from 'vitest';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { analyzeIssue } from '../../src/features/errtracker/analyze-issue.js';
import { ANALYZE_ISSUE_JOB } from '../../src/features/errtracker/issue-analysis-job.js';
import type { AnalyzeIssueJob } from '../../src/features/errtracker/issue-analysis-payload.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { followUpJobs } from '../helpers/follow-up-jobs.js';
import { startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import { deliver, issueAlert } from './tracker-delivery.js';

/**
 * The tracker's analysis job counted only cards that were sent, so a run
 * again after a failed push pushed a second card. It now takes the incidents' card step
 * (escalation/card-once.ts): any card row counts, as a failed push may still have reached
 * the chat.
 */
describe.each(backends())('a tracker analysis run again on %s', (backend) => {
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
    const answer = await deliver(app, issueAlert(`card-once-${backend}`));
    expect(answer.json()).toMatchObject({ status: 'accepted' });
    const row = await waitFor(
      async () => {
        const jobs = await followUpJobs(app, ANALYZE_ISSUE_JOB.name);
        const job = jobs.find((each) => each.id.startsWith(`errtracker-card-once-${backend}-`));
        return job?.completed ? job : undefined;
      },
      { what: 'the first analysis run completing' },
    );
    // Cards carry buttons; the dry run's result message does not.
    const cardsSent = () => tg.calls('sendMessage').filter((call) => call.body.reply_markup);
    expect(cardsSent()).toHaveLength(1);

    // The job's handler once more, as a retry runs it.
    const job = row.payload as AnalyzeIssueJob;
    await analyzeIssue(app.services, createCardSender(app.services), job);
    expect(cardsSent()).toHaveLength(1);
    await tg.close();
  });
});
