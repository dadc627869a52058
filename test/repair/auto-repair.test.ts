import { beforeAll, describe, expect, it } from 'vitest';
import { createDryRunExecutor } from '../../src/adapters/executors/dry-run-executor.js';
import { createKubectlExecutor } from '../../src/adapters/executors/kubectl-executor.js';
import { insertApproval } from '../../src/features/approvals/approval-records.js';
import { lookUpIncident } from '../../src/features/incidents/incident-records.js';
import { executeApprovedPlaybook } from '../../src/features/repair/approved-playbook-run.js';
import { evaluateAutoRepair } from '../../src/features/repair/auto-repair.js';
import { compilePlaybooks, loadPlaybooks } from '../../src/features/repair/playbooks.js';
import { tempDir } from '../helpers/backends.js';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import {
  operationsOf,
  repairDeps,
  seedIncidentApproval,
  setApprovalStatus,
} from './repair-fixtures.js';
import { writeStandInKubectl } from './stand-in-kubectl.js';

const playbooks = loadPlaybooks();
const contextOf = (row: { context: string } | undefined) => JSON.parse(row?.context ?? '{}');

describe.each(backends())('auto-repair on %s', (backend) => {
  const clock = new TestClock();
  let app: TestApp['app'];
  let services: TestApp['app']['services'];
  let store: TestApp['app']['services']['store'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, clock, env: { KUBECTL_CONTEXT: 'prod-eu' } }));
    ({ services } = app);
    ({ store } = services);
  });
  const statusOf = async (id: string) =>
    (
      await store.db
        .selectFrom('approvals')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirst()
    )?.status;
  const standIn = writeStandInKubectl(tempDir('kubectl-'));
  const kubectl = createKubectlExecutor({ context: 'prod-eu', binary: standIn.binary });

  it('dry run: records each step and leaves the approval pending (CONTRACT)', async () => {
    const { deps, moves, messages } = repairDeps(app, {
      executor: createDryRunExecutor({ context: 'prod-eu' }),
      playbooks,
    });
    const { approvalId, incidentId } = await seedIncidentApproval(store, {
      alert_type: 'crash_loop',
      severity: 'P2',
    });
    const decision = await evaluateAutoRepair(services, deps, approvalId);
    expect(decision).toEqual({
      can_auto_repair: true,
      reason: expect.stringContaining('cold start'),
      blocked_by: null,
      playbook: {
        id: 'restart-crash-looping-deployment',
        name: 'Restart a crash-looping deployment',
      },
      similarity_score: 1,
      risk_level: 'medium',
      is_cold_start: true,
    });
    const [triggered, completed] = await operationsOf(store, approvalId);
    expect(triggered).toMatchObject({
      type: 'AUTO_REPAIR_TRIGGERED',
      incident_id: incidentId,
      actor: 'auto-repair',
      success: 1,
    });
    expect(contextOf(triggered)).toMatchObject({ decision, executor: 'dry-run' });
    expect(completed).toMatchObject({
      type: 'EXECUTION_COMPLETED',
      actor: 'auto-repair',
      success: 1,
    });
    expect(contextOf(completed).executed_steps.map((s: { output: string }) => s.output)).toEqual([
      'kubectl --context prod-eu rollout restart deployment/checkout --namespace=shop',
      'kubectl --context prod-eu rollout status deployment/checkout --namespace=shop --timeout=180s',
    ]);
    expect(await statusOf(approvalId)).toBe('pending');
    expect(moves).toEqual([]);
    expect(messages).toEqual([
      expect.objectContaining({
        approval_id: approvalId,
        incident_id: incidentId,
        actor: 'auto-repair',
      }),
    ]);
    expect(messages[0]?.text).toContain('stays pending for a person');
  });

  it.each([
    ['P0', { alert_type: 'crash_loop', severity: 'P0' }, 'incident_severity_P0'],
    ['P1', { alert_type: 'crash_loop', severity: 'P1' }, 'incident_severity_P1'],
    ['no playbook', { alert_type: 'heartbeat', severity: 'P3' }, 'no_playbook'],
    ['critical playbook', { alert_type: 'volume_errors', severity: 'P2' }, 'critical_break_glass'],
  ])('blocked (%s): only the decision is recorded', async (_, input, blocker) => {
    const { deps, moves, messages } = repairDeps(app, { executor: kubectl, playbooks });
    const calls = standIn.calls().length;
    const { approvalId } = await seedIncidentApproval(store, input);
    const decision = await evaluateAutoRepair(services, deps, approvalId);
    expect(decision).toMatchObject({ can_auto_repair: false, blocked_by: blocker });
    const entries = await operationsOf(store, approvalId);
    expect(entries.map((e) => [e.type, e.success])).toEqual([['AUTO_REPAIR_TRIGGERED', 0]]);
    expect(entries[0]?.action_detail).toContain(`(${blocker})`);
    expect(await statusOf(approvalId)).toBe('pending');
    expect([moves, messages, standIn.calls().length - calls]).toEqual([[], [], 0]);
  });

  it('kubectl: pending → executing → executed as auto-repair, then no longer a cold start', async () => {
    const { deps, moves, messages } = repairDeps(app, { executor: kubectl, playbooks });
    const { approvalId } = await seedIncidentApproval(store, {
      alert_type: 'rollout_stuck',
      workload: 'cart',
    });
    const calls = standIn.calls().length;
    expect((await evaluateAutoRepair(services, deps, approvalId))?.is_cold_start).toBe(true);
    expect(standIn.calls().slice(calls)).toEqual([
      ['--context', 'prod-eu', 'rollout', 'undo', 'deployment/cart', '--namespace=shop'],
      [
        '--context',
        'prod-eu',
        'rollout',
        'status',
        'deployment/cart',
        '--namespace=shop',
        '--timeout=300s',
      ],
    ]);
    expect(moves.map((m) => [m.from, m.to, m.actor, m.channel, m.moved])).toEqual([
      [['pending'], 'executing', 'auto-repair', 'auto-repair', true],
      [['executing'], 'executed', 'auto-repair', 'auto-repair', true],
    ]);
    expect(await statusOf(approvalId)).toBe('executed');
    expect(messages[0]?.text).toContain('Repair executed');

    const second = await seedIncidentApproval(store, {
      alert_type: 'rollout_stuck',
      workload: 'cart',
    });
    const again = await evaluateAutoRepair(services, deps, second.approvalId);
    expect(again).toMatchObject({
      is_cold_start: false,
      reason: expect.stringContaining('1 successful run before'),
    });
  });

  it('kubectl: a failed step stops the run and fails the approval', async () => {
    const [failing] = compilePlaybooks(
      {
        playbooks: [
          {
            id: 'fails-second',
            name: 'Fails at the second step',
            matches: { alert_types: ['latency'] },
            steps: [
              { id: 'one', description: 'd', args: ['get', 'deployment/{workload}'] },
              { id: 'two', description: 'd', args: ['fail'] },
              { id: 'three', description: 'd', args: ['never'] },
            ],
            risk_level: 'low',
            blast_radius: { affected_pods: 1, estimated_downtime: '0', data_impact: 'NONE' },
          },
        ],
      },
      'test',
    );
    const { deps, messages } = repairDeps(app, { executor: kubectl, playbooks: [failing!] });
    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'latency' });
    const calls = standIn.calls().length;
    await evaluateAutoRepair(services, deps, approvalId);
    expect(
      standIn
        .calls()
        .slice(calls)
        .map((call) => call[2]),
    ).toEqual(['get', 'fail']);
    expect(await statusOf(approvalId)).toBe('failed');
    const completed = (await operationsOf(store, approvalId))[1];
    expect(completed).toMatchObject({
      type: 'EXECUTION_COMPLETED',
      success: 0,
      error_message: expect.stringContaining('Step two failed'),
    });
    expect(messages[0]?.text).toContain('Repair failed');
  });

  it('evaluates an approval once, even when asked five times at once', async () => {
    const { deps } = repairDeps(app, { executor: createDryRunExecutor(), playbooks });
    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => evaluateAutoRepair(services, deps, approvalId)),
    );
    expect(decisions.filter((d) => d !== null)).toHaveLength(1);
    expect((await operationsOf(store, approvalId)).map((e) => e.type)).toEqual([
      'AUTO_REPAIR_TRIGGERED',
      'EXECUTION_COMPLETED',
    ]);
  });

  it('takes the incident its caller read, and reads its own when given another', async () => {
    const { deps } = repairDeps(app, { executor: createDryRunExecutor(), playbooks });
    const crash = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    const unmatched = await seedIncidentApproval(store, { alert_type: 'nothing_matches_this' });
    const rowOf = async (id: string) => (await lookUpIncident(store.db, id))!;
    // Another approval's incident: the approval's own is read, and its playbook matches.
    const fromOwn = await evaluateAutoRepair(
      services,
      deps,
      crash.approvalId,
      await rowOf(unmatched.incidentId),
    );
    expect(fromOwn?.playbook?.id).toBe('restart-crash-looping-deployment');
    // Its own incident as the caller read it is taken as it is, not read again.
    const asRead = { ...(await rowOf(unmatched.incidentId)), alert_type: 'crash_loop' };
    const fromCaller = await evaluateAutoRepair(services, deps, unmatched.approvalId, asRead);
    expect(fromCaller?.playbook?.id).toBe('restart-crash-looping-deployment');
  });

  it('skips an approval that is no longer pending, or unknown', async () => {
    const { deps } = repairDeps(app, { executor: createDryRunExecutor(), playbooks });
    const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
    await setApprovalStatus(store, approvalId, 'rejected');
    expect(await evaluateAutoRepair(services, deps, approvalId)).toBeNull();
    expect(await evaluateAutoRepair(services, deps, 'temp-0badc0de')).toBeNull();
    expect(await operationsOf(store, approvalId)).toEqual([]);
  });

  it('an error-tracker approval matches by error signature, the project standing in for the workload', async () => {
    const executor = createDryRunExecutor({ context: 'prod-eu' });
    const { deps } = repairDeps(app, { executor, playbooks });
    const approvalId = await insertApproval(
      store.db,
      {
        incidentId: null,
        riskLevel: 'high',
        action: 'errtracker ERROR Alert: db.pool',
        description: 'x',
        requestedBy: 'errtracker-webhook',
        metadata: {
          alert_type: 'errtracker_error',
          project: 'payments-api',
          error_signature: 'pool-exhausted',
        },
      },
      clock.now(),
    );
    const decision = await evaluateAutoRepair(services, deps, approvalId);
    expect(decision).toMatchObject({
      can_auto_repair: true,
      similarity_score: 0.9,
      risk_level: 'high',
      playbook: { id: 'recycle-connection-pool' },
    });
    const completed = (await operationsOf(store, approvalId))[1];
    expect(contextOf(completed).executed_steps[0].output).toBe(
      'kubectl --context prod-eu rollout restart deployment/payments-api --namespace=default',
    );
  });

  describe('executeApprovedPlaybook', () => {
    it('runs a person-approved P0 repair: approved → executing → executed, even on dry run', async () => {
      const { deps, moves, messages } = repairDeps(app, {
        executor: createDryRunExecutor(),
        playbooks,
      });
      const { approvalId } = await seedIncidentApproval(store, {
        alert_type: 'oom_killed',
        severity: 'P0',
        risk: 'critical',
      });
      await setApprovalStatus(store, approvalId, 'approved');
      const results = await Promise.all([
        executeApprovedPlaybook(services, deps, approvalId, 'tg_42'),
        executeApprovedPlaybook(services, deps, approvalId, 'tg_43'),
      ]);
      const ran = results.filter((r) => r !== null);
      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatchObject({
        success: true,
        playbook_id: 'raise-memory-limit-on-oom',
        error: null,
      });
      expect(await statusOf(approvalId)).toBe('executed');
      expect(moves.filter((m) => m.moved).map((m) => [m.to, m.channel])).toEqual([
        ['executing', 'chat'],
        ['executed', 'chat'],
      ]);
      const entries = await operationsOf(store, approvalId);
      expect(entries.map((e) => e.type)).toEqual(['EXECUTION_COMPLETED']);
      expect(contextOf(entries[0]).executor).toBe('dry-run');
      expect(messages).toHaveLength(1);
    });

    it('fails an approval no playbook matches', async () => {
      const { deps } = repairDeps(app, { executor: kubectl, playbooks });
      const { approvalId } = await seedIncidentApproval(store, { alert_type: 'heartbeat' });
      await setApprovalStatus(store, approvalId, 'approved');
      const result = await executeApprovedPlaybook(services, deps, approvalId, 'tg_42');
      expect(result).toMatchObject({
        success: false,
        playbook_id: null,
        error: 'No playbook matches alert type heartbeat',
      });
      expect(await statusOf(approvalId)).toBe('failed');
      expect((await operationsOf(store, approvalId))[0]).toMatchObject({
        type: 'EXECUTION_COMPLETED',
        success: 0,
      });
    });

    it.each([
      ['medium', 'failed'],
      ['critical', 'executed'],
    ] as const)('a critical playbook on a %s approval ends %s', async (risk, status) => {
      const { deps } = repairDeps(app, { executor: kubectl, playbooks });
      const { approvalId } = await seedIncidentApproval(store, {
        alert_type: 'volume_errors',
        risk,
        workload: 'db',
      });
      await setApprovalStatus(store, approvalId, 'approved');
      const result = await executeApprovedPlaybook(services, deps, approvalId, 'tg_1');
      expect(await statusOf(approvalId)).toBe(status);
      if (status === 'failed') expect(result?.error).toContain('break-glass');
    });

    it('does nothing unless the approval is approved', async () => {
      const { deps, moves } = repairDeps(app, { executor: kubectl, playbooks });
      const { approvalId } = await seedIncidentApproval(store, { alert_type: 'crash_loop' });
      expect(await executeApprovedPlaybook(services, deps, approvalId, 'tg_1')).toBeNull();
      expect([moves, await statusOf(approvalId)]).toEqual([[], 'pending']);
    });
  });
});
