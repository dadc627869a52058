import { describe, expect, it, vi } from 'vitest';
import { ANALYZE_ISSUE_JOB } from '../../src/features/errtracker/issue-analysis-job.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { followUpJobs, queueOutage } from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';
import { deliver, issueAlert } from './tracker-delivery.js';

const env = { SIGNAL_CONSUMER: 'false' };

/**
 * An accepted tracker delivery commits its analysis job before it is answered:
 * a queue outage delays the analysis, a database failure gives the dedup window back, and a
 * job that runs twice makes one approval.
 */
describe.each(backends())('the analysis of an accepted tracker issue on %s', (backend) => {
  const approvalsOf = (app: Awaited<ReturnType<typeof buildTestApp>>['app'], issue: string) =>
    app.services.store.db
      .selectFrom('approvals')
      .select('id')
      .where('metadata', 'like', `%"issue_id":"${issue}"%`)
      .execute();

  it('runs once the queue that refused it is back', async () => {
    const { app } = await buildTestApp({ backend, env });
    const outage = queueOutage(app, ANALYZE_ISSUE_JOB.name);
    const response = await deliver(app, issueAlert('outbox-analysis-1'));
    expect(response.json()).toMatchObject({ status: 'accepted' });
    await waitFor(async () => ((await outage.struck()) ? true : undefined), {
      what: 'the refused analysis',
    });
    expect(await approvalsOf(app, 'outbox-analysis-1')).toEqual([]);
    await outage.end();
    await waitFor(
      async () => ((await approvalsOf(app, 'outbox-analysis-1')).length > 0 ? true : undefined),
      { what: 'the analysis after the outage', timeoutMs: 15_000 },
    );
  });

  it('answers 500 and releases the dedup window when the job cannot be committed', async () => {
    const { app } = await buildTestApp({ backend, env });
    const db = app.services.store.db;
    const transaction = db.transaction.bind(db);
    const failing = vi.spyOn(db, 'transaction').mockImplementationOnce(() => {
      throw new Error('database unavailable (test)');
    });
    const first = await deliver(app, issueAlert('outbox-analysis-2'));
    expect(first.statusCode).toBe(500);
    failing.mockImplementation(transaction);
    // The tracker delivers again: analysed, not deduplicated.
    const again = await deliver(app, issueAlert('outbox-analysis-2'));
    expect(again.json()).toMatchObject({ status: 'accepted' });
    await waitFor(
      async () => ((await approvalsOf(app, 'outbox-analysis-2')).length > 0 ? true : undefined),
      { what: 'the analysis of the redelivery', timeoutMs: 15_000 },
    );
  });

  it('makes one approval and one card when its job runs twice', async () => {
    const { app } = await buildTestApp({ backend, env });
    await deliver(app, issueAlert('outbox-analysis-3'));
    await waitFor(
      async () => ((await approvalsOf(app, 'outbox-analysis-3')).length > 0 ? true : undefined),
      { what: 'the first run', timeoutMs: 15_000 },
    );
    const [first] = await followUpJobs(app, ANALYZE_ISSUE_JOB.name);
    const payload = first?.payload ?? {};
    // The same job again, as a retry after a crash would run it.
    await app.services.jobs.enqueue(ANALYZE_ISSUE_JOB.name, payload, {
      jobId: 'retry-of-the-same',
    });
    await waitFor(
      async () => {
        const linked = await app.services.store.db
          .selectFrom('external_alert_events')
          .select('id')
          .where('stage', '=', 'approval_linked')
          .where('issue_id', '=', 'outbox-analysis-3')
          .execute();
        return linked.length >= 2 ? true : undefined;
      },
      { what: 'the second run', timeoutMs: 15_000 },
    );
    expect(await approvalsOf(app, 'outbox-analysis-3')).toHaveLength(1);
  });
});
