import { beforeAll, describe, expect, it } from 'vitest';
import { buildScene } from '../../src/features/readbacks/live-ops-scene.js';
import { effectivePolicy, readPolicy } from '../../src/features/readbacks/runtime-control.js';
import { interpretZeros } from '../../src/features/readbacks/source-health.js';
import { type TestApp, TestClock } from '../helpers/build-app.js';
import { AGENTS, readbackApp, readbackDir, removeDoc, writeDoc } from './readback-helpers.js';

const ALL = ['low', 'medium', 'high', 'critical'] as const;

describe('effectivePolicy', () => {
  it.each([
    ['no committed policy: the engine rules', undefined, ['low', 'medium', 'high']],
    ['owners allow low only', { policy: { auto_repair_risk_levels: ['low'] } }, ['low']],
    [
      'owners allow critical: break-glass still blocked',
      { policy: { auto_repair_risk_levels: [...ALL] } },
      ['low', 'medium', 'high'],
    ],
    [
      'a blocked reason wins over an allowance',
      { policy: { blocked_risk_levels: { medium: 'freeze' } } },
      ['low', 'high'],
    ],
    ['kill switch', { policy: { kill_switch: true } }, []],
  ])('%s', (_name, document, allowed) => {
    const levels = effectivePolicy(readPolicy(document), ['low', 'critical']);
    expect(levels.filter((l) => l.auto_repair).map((l) => l.risk_level)).toEqual(allowed);
    expect(levels.find((l) => l.risk_level === 'critical')?.blocked_by).toContain(
      'critical_break_glass',
    );
    expect(levels.find((l) => l.risk_level === 'low')?.playbooks).toBe(1);
  });

  it.each([
    [{ policy: { auto_repair_risk_levels: ['urgent'] } }],
    [{ policy: { kill_switch: 'yes' } }],
    [{ policy: { blocked_risk_levels: { high: 3 } } }],
  ])('refuses %j', (document) => {
    expect(() => readPolicy(document)).toThrow(/agent-autonomous-runtime-control/);
  });
});

describe('buildScene', () => {
  const now = Date.parse('2026-11-22T01:00:00Z');
  it('marks actors active from recent trace events and open work items', () => {
    const scene = buildScene({
      now,
      trace: [
        {
          seq: 9,
          type: 'CHAT_RESULT_SENT',
          actor: 'auto-repair',
          success: true,
          at: now - 1000,
          summary: 'sent',
        },
        {
          seq: 8,
          type: 'EXECUTION_COMPLETED',
          actor: 'auto-repair',
          success: false,
          at: now - 2000,
          summary: 'step failed',
        },
      ],
      workItems: [
        {
          id: 'w',
          title: 'Audit',
          status: 'in_progress',
          progress_percent: 40,
          owner_role: 'security',
        },
      ],
      lastIntakeAt: now - 10 * 60_000,
      recentIntake: 0,
      chatConfigured: true,
    });
    const state = Object.fromEntries(scene.actors.map((a) => [a.id, a.state]));
    expect(state).toEqual({
      intake: 'idle',
      stability: 'idle',
      security: 'active',
      cost: 'idle',
      performance: 'idle',
      executor: 'blocked',
      chat_gateway: 'active',
    });
    expect(scene.frame.sequence).toBe(9);
    expect(scene.edges.find((e) => e.from === 'executor')?.active).toBe(false);
    expect(scene.actors.find((a) => a.id === 'security')?.activity).toBe('Audit (40%)');
  });
});

describe('interpretZeros', () => {
  const ok = [{ source: 'database', status: 'ok' as const, detail: '' }];
  const down = [{ source: 'database', status: 'unavailable' as const, detail: '' }];
  it.each([
    [{ alerts: 0, incidents: 0 }, ok, 'quiet_window', true],
    [{ alerts: 0, incidents: 0 }, down, 'zeros_untrusted', true],
    [{ alerts: 3, incidents: 0 }, down, 'activity_present', false],
  ])('%j with %j → %s', (counts, sources, verdict, allZero) => {
    expect(interpretZeros(counts, sources, 24)).toMatchObject({ verdict, all_zero: allZero });
  });
});

describe('runtime control, scene, source health and gitserver gates over HTTP', () => {
  const clock = new TestClock();
  const dir = readbackDir();
  let app: TestApp['app'];
  let oplog: TestApp['app']['services']['oplog'];
  beforeAll(async () => {
    ({ app } = await readbackApp({ dir, clock }));
    ({ oplog } = app.services);
  });
  const log = (
    type: 'AUTO_REPAIR_TRIGGERED' | 'EXECUTION_COMPLETED',
    success: boolean,
    detail: string,
  ) =>
    oplog.append(
      {
        type,
        incidentId: null,
        approvalId: 'apr-1',
        actor: 'auto-repair',
        actionDetail: detail,
        success,
        errorMessage: null,
        context: { secret_context: 'never shown' },
      },
      clock.now(),
    );

  it('runtime control: committed policy, live configuration and live counts, in public terms', async () => {
    writeDoc(dir, 'agent-autonomous-runtime-control', {
      policy: { auto_repair_risk_levels: ['low', 'medium'], break_glass: { requested: true } },
      work_items: [
        {
          id: 'w1',
          title: 'Tune winhost-vmx checks on agentcore',
          status: 'in_progress',
          progress_percent: 50,
          owner_role: 'stability',
        },
      ],
    });
    await log(
      'AUTO_REPAIR_TRIGGERED',
      true,
      'Auto-repair allowed: playbook restart-crash-looping-deployment',
    );
    await log('AUTO_REPAIR_TRIGGERED', false, 'Auto-repair blocked (incident_severity_P1)');
    await log('EXECUTION_COMPLETED', true, 'Playbook restart-crash-looping-deployment on 10.0.0.7');
    const body = (await app.inject(`${AGENTS}/agent-autonomous-runtime-control`)).json();
    expect(body.summary).toMatchObject({
      auto_repair_risk_levels: ['low', 'medium'],
      blocked_risk_levels: ['high', 'critical'],
      executor: 'dry-run',
    });
    expect(body.effective_policy.break_glass).toMatchObject({ state: 'blocked', requested: true });
    expect(body.live_counts).toMatchObject({
      auto_repair_allowed: 1,
      auto_repair_blocked: 1,
      executions_succeeded: 1,
      executions_failed: 0,
    });
    expect(body.live_counts.by_type.AUTO_REPAIR_TRIGGERED).toEqual({ total: 2, last_24h: 2 });
    expect(body.work_items[0].title).toBe('Tune windows-host-vm-config checks on agent-runtime');
    expect(JSON.stringify(body)).not.toMatch(/winhost|agentcore|vmx/i);
  });

  it('scene: the latest public-safe trace events, never their context', async () => {
    const body = (await app.inject(`${AGENTS}/agentcore-live-ops-scene-state`)).json();
    expect(body.trace.map((e: { type: string }) => e.type)).toEqual([
      'EXECUTION_COMPLETED',
      'AUTO_REPAIR_TRIGGERED',
      'AUTO_REPAIR_TRIGGERED',
    ]);
    expect(body.trace[0].summary).toBe(
      'Playbook restart-crash-looping-deployment on [redacted-ip]',
    );
    expect(body.actors.find((a: { id: string }) => a.id === 'stability').state).toBe('active');
    expect(body.actors.find((a: { id: string }) => a.id === 'executor').state).toBe('active');
    expect(body.actors.find((a: { id: string }) => a.id === 'chat_gateway').state).toBe('offline');
    expect(JSON.stringify(body)).not.toContain('never shown');
  });

  it('an invalid policy is a 500 for both', async () => {
    writeDoc(dir, 'agent-autonomous-runtime-control', { policy: 'everything' });
    for (const name of ['agent-autonomous-runtime-control', 'agentcore-live-ops-scene-state']) {
      expect((await app.inject(`${AGENTS}/${name}`)).json()).toEqual({
        code: 'readback_invalid',
        detail: `Invalid readback data: ${name}`,
      });
    }
    removeDoc(dir, 'agent-autonomous-runtime-control');
  });

  it('source health: every source answered, activity counted, preview not sent', async () => {
    const body = (await app.inject(`${AGENTS}/agent-report-source-health`)).json();
    expect(body.status).toBe('healthy');
    expect(body.counts.operations).toBe(3);
    expect(body.all_zero_interpretation.verdict).toBe('activity_present');
    expect(body.report_preview).toMatchObject({ sent: false });
    expect(body.sources.map((s: { source: string }) => s.source)).toEqual([
      'database',
      'signal_stream',
      'operation_log',
      'readback_dir',
      'playbooks',
      'chat_gateway',
    ]);
  });

  it('source health: a quiet window is explained', async () => {
    clock.advance(3 * 24 * 3600_000);
    const body = (await app.inject(`${AGENTS}/agent-report-source-health`)).json();
    expect(body.all_zero_interpretation).toMatchObject({ all_zero: true, verdict: 'quiet_window' });
  });

  const P = 'platform-gitserver-onboarding-warning-step';
  it('gitserver gates form a chain and never trigger a workflow', async () => {
    writeDoc(dir, `${P}-template-copy-execution-plan`, {
      target_repositories: ['a/api', 'a/web'],
      steps: [{ id: 'copy' }],
    });
    writeDoc(dir, `${P}-template-copy-apply-gate`, {
      required_approvals: ['platform-owner', 'security-owner'],
      approvals: [{ role: 'platform-owner' }],
    });
    writeDoc(dir, `${P}-template-copy-receipt`, { copies: [{ repository: 'a/api' }] });
    writeDoc(dir, `${P}-runtime-enablement-gate`, {
      enablement_checks: [{ id: 'warning-only', passed: true }],
    });
    const get = async (suffix: string) => (await app.inject(`${AGENTS}/${P}-${suffix}`)).json();
    expect(await get('template-copy-execution-plan')).toMatchObject({
      status: 'ready',
      workflow_triggered: false,
      workflow_dispatch_allowed: false,
    });
    expect((await get('template-copy-apply-gate')).blocked_by).toEqual([
      'approval_missing:security-owner',
    ]);
    expect((await get('template-copy-receipt')).blocked_by).toEqual([
      'apply_gate_not_ready',
      'copy_receipt_missing:a/web',
    ]);
    const enablement = await get('runtime-enablement-gate');
    expect(enablement).toMatchObject({ status: 'blocked', blocked_by: ['copy_receipt_not_ready'] });
    expect(enablement.upstream.map((g: { status: string }) => g.status)).toEqual([
      'ready',
      'blocked',
      'blocked',
    ]);

    writeDoc(dir, `${P}-template-copy-apply-gate`, {
      required_approvals: ['platform-owner'],
      approvals: [{ role: 'platform-owner' }],
    });
    writeDoc(dir, `${P}-template-copy-receipt`, {
      copies: [{ repository: 'a/api' }, { repository: 'a/web' }],
    });
    expect(await get('runtime-enablement-gate')).toMatchObject({
      status: 'ready',
      blocked_by: [],
      workflow_triggered: false,
    });
  });
});
