import { beforeAll, describe, expect, it } from 'vitest';
import { createDryRunExecutor } from '../../src/adapters/executors/dry-run-executor.js';
import { compilePlaybooks } from '../../src/features/repair/playbooks.js';
import {
  fillSteps,
  type RepairTarget,
  runPlaybook,
} from '../../src/features/repair/run-playbook.js';
import type { Executor, PlaybookStep } from '../../src/ports/executor.js';
import { buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import { operationsOf } from './repair-fixtures.js';

const values = {
  namespace: 'shop',
  workload: 'checkout',
  target: 'checkout-7d9f-x2x4z',
  context: 'prod-eu',
};
const step = (...args: string[]): PlaybookStep => ({ id: 'step', description: 'd', args });

describe('fillSteps', () => {
  it.each([
    [
      ['deployment/{workload}', '--namespace={namespace}'],
      ['deployment/checkout', '--namespace=shop'],
    ],
    [
      ['pod/{target}', 'x={context}'],
      ['pod/checkout-7d9f-x2x4z', 'x=prod-eu'],
    ],
    [
      ['secret/{workload}-tls', '--patch={"a":{"b":1}}'],
      ['secret/checkout-tls', '--patch={"a":{"b":1}}'],
    ],
  ])('fills %j', (args, filled) => {
    expect(fillSteps([step(...args)], values)).toEqual({ steps: [step(...filled)] });
  });

  it.each([
    [{ workload: '' }, 'needs {workload}'],
    [{ workload: '--all' }, '{workload} "--all" is not a valid Kubernetes name'],
    [{ workload: 'a b' }, 'not a valid Kubernetes name'],
    [{ workload: 'Checkout' }, 'not a valid Kubernetes name'],
    [{ namespace: 'shop.eu' }, '{namespace} "shop.eu" is not a valid Kubernetes name'],
    [{ context: undefined }, 'needs {context}'],
    [{ context: '--kubeconfig=/x' }, 'not a valid Kubernetes name'],
  ])('refuses %j', (override, message) => {
    const result = fillSteps([step('deployment/{workload}', '-n={namespace}', '{context}')], {
      ...values,
      ...override,
    });
    expect(result).toEqual({ error: expect.stringContaining(message) });
  });

  it('checks only the placeholders a step uses', () => {
    expect(fillSteps([step('node/{target}')], { ...values, workload: '' })).toEqual({
      steps: [step('node/checkout-7d9f-x2x4z')],
    });
  });
});

const [playbook] = compilePlaybooks(
  {
    playbooks: [
      {
        id: 'three-steps',
        name: 'Three steps',
        matches: { alert_types: ['crash_loop'] },
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

/** Fails the step whose first arg is `fail`; records what it was asked to run. */
function scriptedExecutor(ran: string[][]): Executor {
  return {
    name: 'kubectl',
    changesState: true,
    async run(s) {
      ran.push(s.args);
      const failed = s.args[0] === 'fail';
      return {
        step_id: s.id,
        success: !failed,
        output: failed ? 'error: nope' : 'ok',
        simulated: false,
      };
    },
  };
}

describe('runPlaybook', () => {
  const clock = new TestClock();
  let store: TestApp['app']['services']['store'];
  let oplog: TestApp['app']['services']['oplog'];
  beforeAll(async () => {
    const { app } = await buildTestApp({ clock });
    ({ store, oplog } = app.services);
  });
  const target = (approval: string): RepairTarget => ({
    namespace: 'shop',
    workload: 'checkout',
    target: 'checkout-1',
    incident_id: 'inc-1',
    approval_id: approval,
  });

  it('stops at the first failed step and records EXECUTION_COMPLETED', async () => {
    const ran: string[][] = [];
    const result = await runPlaybook(
      { oplog, clock, executor: scriptedExecutor(ran) },
      playbook!,
      target('a-1'),
      'tg_7',
    );
    expect(ran).toEqual([['get', 'deployment/checkout'], ['fail']]);
    expect(result).toMatchObject({
      success: false,
      playbook_id: 'three-steps',
      error: 'Step two failed: error: nope',
      executed_steps: [
        { step_id: 'one', success: true },
        { step_id: 'two', success: false },
      ],
    });
    expect(result.execution_time_ms).toBeGreaterThanOrEqual(0);
    const [entry] = await operationsOf(store, 'a-1');
    expect(entry).toMatchObject({
      type: 'EXECUTION_COMPLETED',
      incident_id: 'inc-1',
      actor: 'tg_7',
      success: 0,
      error_message: 'Step two failed: error: nope',
      created_at: clock.now(),
    });
    expect(JSON.parse(entry!.context)).toEqual({
      playbook_id: 'three-steps',
      executed_steps: result.executed_steps,
      execution_time_ms: result.execution_time_ms,
      executor: 'kubectl',
    });
  });

  it('a dry run records every step as its command line', async () => {
    const executor = createDryRunExecutor({ context: 'prod-eu' });
    const result = await runPlaybook(
      { oplog, clock, executor },
      playbook!,
      target('a-2'),
      'auto-repair',
    );
    expect(result.success).toBe(true);
    expect(result.executed_steps.map((s) => s.output)).toEqual([
      'kubectl --context prod-eu get deployment/checkout',
      'kubectl --context prod-eu fail',
      'kubectl --context prod-eu never',
    ]);
    expect(result.executed_steps.every((s) => s.simulated)).toBe(true);
    const [entry] = await operationsOf(store, 'a-2');
    expect(entry?.action_detail).toBe(
      'Playbook three-steps via dry-run: 3/3 steps recorded (dry run)',
    );
  });

  it('runs nothing when a placeholder cannot be filled', async () => {
    const ran: string[][] = [];
    const result = await runPlaybook(
      { oplog, clock, executor: scriptedExecutor(ran) },
      playbook!,
      { ...target('a-3'), workload: 'Not_A_Name' },
      'auto-repair',
    );
    expect(ran).toEqual([]);
    expect(result).toMatchObject({
      success: false,
      executed_steps: [],
      error: expect.stringContaining('{workload}'),
    });
  });

  it('turns a throwing executor into a failed step', async () => {
    const executor: Executor = {
      name: 'kubectl',
      changesState: true,
      run: async () => {
        throw new Error('socket closed');
      },
    };
    const result = await runPlaybook(
      { oplog, clock, executor },
      playbook!,
      target('a-4'),
      'auto-repair',
    );
    expect(result).toMatchObject({ success: false, error: 'Step one failed: socket closed' });
  });
});
