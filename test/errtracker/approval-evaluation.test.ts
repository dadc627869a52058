import { describe, expect, it } from 'vitest';
import { EVALUATE_REPAIR_JOB } from '../../src/features/repair/repair-jobs.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { queueOutage } from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';
import { deliver, issueAlert } from './tracker-delivery.js';

/**
 * An approval made from a tracker issue commits with its repair evaluation (the outbox): a
 * queue that refuses the evaluation when the approval is made delays it, never loses it.
 */
describe.each(backends())('the repair evaluation of an issue approval on %s', (backend) => {
  it('is relayed once the queue that refused it is back', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const { store } = app.services;
    // The one stand-in: the real queue, refusing only the evaluation.
    const outage = queueOutage(app, EVALUATE_REPAIR_JOB.name);
    expect((await deliver(app, issueAlert('outbox-1'))).statusCode).toBeLessThan(300);
    const approval = await waitFor(
      async () =>
        store.db
          .selectFrom('approvals')
          .select('id')
          .where('metadata', 'like', '%"issue_id":"outbox-1"%')
          .executeTakeFirst(),
      { what: 'the approval of the issue' },
    );
    const evaluations = () =>
      store.db
        .selectFrom('operation_log')
        .select('id')
        .where('approval_id', '=', approval.id)
        .where('type', '=', 'AUTO_REPAIR_TRIGGERED')
        .execute();
    await waitFor(async () => ((await outage.struck()) ? true : undefined), {
      what: 'the refused evaluation',
    });
    expect(await evaluations()).toEqual([]);

    await outage.end();
    await waitFor(async () => ((await evaluations()).length > 0 ? true : undefined), {
      what: 'the evaluation relayed after the outage',
      timeoutMs: 15_000,
    });
    expect(await evaluations()).toHaveLength(1);
  });
});
