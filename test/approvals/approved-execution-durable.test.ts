import { describe, expect, it } from 'vitest';
import { EXECUTE_APPROVAL_JOB } from '../../src/features/repair/approved-playbook-run.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { queueOutage } from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = 'alice-key-0123456789';

/**
 * CONTRACT, Approvals: "An approved approval's execution is never lost:
 * it starts even when the job queue was unreachable at the moment of the decision, once the
 * queue is back." The execution is written to the outbox in the decision's transaction.
 */
describe.each(backends())('an approval decided while the queue is down, on %s', (backend) => {
  it('executes once the queue is back', async () => {
    const { app } = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` },
    });
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'warning',
        namespace: 'durable',
        target_resource: 'checkout-1',
      })
    ).json();
    // The one stand-in: the real queue, refusing (or holding back) only the execution.
    const outage = queueOutage(app, EXECUTE_APPROVAL_JOB.name);
    const decided = await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${created.approval_id}/decision`,
      headers: { 'x-operator-id': 'alice', 'x-operator-key': KEY },
      payload: { decision: 'approve' },
    });
    expect(decided.json()).toMatchObject({ status: 'approved', execution_triggered: true });
    expect(await outage.struck()).toBe(true);
    const status = async () =>
      (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json().status as string;
    expect(await status()).toBe('approved');

    await outage.end();
    const final = await waitFor(
      async () => {
        const now = await status();
        return now === 'executed' || now === 'failed' ? now : undefined;
      },
      { what: 'the execution relayed after the outage', timeoutMs: 15_000 },
    );
    expect(final).toBe('executed');
  });
});
