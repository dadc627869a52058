import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp, postSigned } from '../helpers/build-app.js';
import { followUpJobs } from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeStandInKubectl } from './stand-in-kubectl.js';

type Entry = {
  type: string;
  actor: string;
  success: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON body under assertion
  context: Record<string, any>;
};

async function logOf(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  approvalId: string,
  type: string,
) {
  return waitFor(
    async () => {
      const items = (await app.inject(`/api/v1/operation-log?approval_id=${approvalId}`)).json()
        .items as Entry[];
      const found = items.filter((entry) => entry.type === type);
      return found.length > 0 ? found : undefined;
    },
    { what: `${type} for ${approvalId}` },
  );
}

describe('auto-repair after an alert opens an approval', () => {
  it('dry run: records the decision and the steps, and leaves the approval pending', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'warning',
        namespace: 'shop',
        target_resource: 'cart-6b8f9c7d5-k2p9x',
      })
    ).json();
    const [triggered] = await logOf(app, created.approval_id, 'AUTO_REPAIR_TRIGGERED');
    expect(triggered!.context.decision).toMatchObject({
      can_auto_repair: true,
      blocked_by: null,
      is_cold_start: true,
      similarity_score: 1,
    });
    const [completed] = await logOf(app, created.approval_id, 'EXECUTION_COMPLETED');
    expect(completed!.context.executor).toBe('dry-run');
    expect((await app.inject(`/api/v1/approvals/${created.approval_id}`)).json().status).toBe(
      'pending',
    );
  });

  it('blocks P0 and P1 incidents', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'critical',
        namespace: 'shop',
        target_resource: 'pay-6b8f9c7d5-k2p9x',
      })
    ).json();
    const [triggered] = await logOf(app, created.approval_id, 'AUTO_REPAIR_TRIGGERED');
    expect(triggered!.context.decision).toMatchObject({
      can_auto_repair: false,
      blocked_by: 'incident_severity_P1',
    });
  });

  it('kubectl: runs the playbook with the context and moves the approval to executed', async () => {
    const dir = tempDir('kubectl-');
    const kubectl = writeStandInKubectl(dir);
    vi.stubEnv('PATH', `${path.dirname(kubectl.binary)}:${process.env.PATH}`);
    const { app } = await buildTestApp({
      env: {
        SIGNAL_CONSUMER: 'false',
        REPAIR_EXECUTOR: 'kubectl',
        KUBECTL_CONTEXT: 'staging-east',
      },
    });
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'warning',
        namespace: 'shop',
        target_resource: 'web-6b8f9c7d5-k2p9x',
      })
    ).json();
    const status = await waitFor(async () => {
      const current = (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json().status;
      return current === 'executed' || current === 'failed' ? current : undefined;
    });
    expect(status).toBe('executed');
    const calls = kubectl.calls();
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]!.slice(0, 2)).toEqual(['--context', 'staging-east']);
    expect(calls[0]).toEqual([
      '--context',
      'staging-east',
      'rollout',
      'restart',
      'deployment/web',
      '--namespace=shop',
    ]);
    const [completed] = await logOf(app, created.approval_id, 'EXECUTION_COMPLETED');
    expect(completed).toMatchObject({ actor: 'auto-repair', success: true });
    // A real executor may wait on the cluster: its evaluation is a durable job of its own.
    const evaluations = await followUpJobs(app, 'repair.evaluate');
    expect(evaluations.map((job) => job.id)).toContain(`repair-evaluate-${created.approval_id}`);
  });
});
