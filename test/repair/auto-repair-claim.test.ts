import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createDryRunExecutor } from '../../src/adapters/executors/dry-run-executor.js';
import { evaluateAutoRepair } from '../../src/features/repair/auto-repair.js';
import { loadPlaybooks } from '../../src/features/repair/playbooks.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';
import { operationsOf, repairDeps, seedIncidentApproval } from './repair-fixtures.js';

/**
 * An evaluation claims its approval by writing AUTO_REPAIR_TRIGGERED, in one transaction:
 * never twice, and never a claim without its entry (an approval that then nobody evaluates).
 */
describe.each(backends())('auto-repair evaluation claim on %s', (backend) => {
  let services: TestApp['app']['services'];
  let store: TestApp['app']['services']['store'];
  let deps: ReturnType<typeof repairDeps>['deps'];
  beforeAll(async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    ({ services } = app);
    ({ store } = services);
    ({ deps } = repairDeps(app, {
      executor: createDryRunExecutor(),
      playbooks: loadPlaybooks(),
    }));
  });

  async function triggered(approvalId: string) {
    return (await operationsOf(store, approvalId)).filter(
      (entry) => entry.type === 'AUTO_REPAIR_TRIGGERED',
    );
  }

  it('writes one AUTO_REPAIR_TRIGGERED when two evaluations run at once', async () => {
    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    const decisions = await Promise.all([
      evaluateAutoRepair(services, deps, approvalId),
      evaluateAutoRepair(services, deps, approvalId),
    ]);
    expect(decisions.filter((decision) => decision !== null)).toHaveLength(1);
    expect(await triggered(approvalId)).toHaveLength(1);
  });

  it('leaves the approval to evaluate again when an evaluation dies before recording', async () => {
    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    const withLock = store.withLock.bind(store);
    let killed = false;
    // The process dies in the transaction that records the decision: it never commits.
    const spy = vi.spyOn(store, 'withLock').mockImplementation(async (names, work) => {
      if (!killed && names === 'operation_log') {
        killed = true;
        throw new Error('killed while recording (test)');
      }
      return withLock(names, work);
    });
    try {
      await expect(evaluateAutoRepair(services, deps, approvalId)).rejects.toThrow('killed');
    } finally {
      spy.mockRestore();
    }
    expect(killed).toBe(true);
    expect(await triggered(approvalId)).toHaveLength(0);

    // The job's retry (or the next process) evaluates it, exactly once.
    expect(await evaluateAutoRepair(services, deps, approvalId)).not.toBeNull();
    expect(await evaluateAutoRepair(services, deps, approvalId)).toBeNull();
    expect(await triggered(approvalId)).toHaveLength(1);
  });
});
