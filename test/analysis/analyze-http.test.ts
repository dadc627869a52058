import { describe, expect, it } from 'vitest';
import { insertTask } from '../../src/features/analysis/task-records.js';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { analyze, type Json, openIncident, statusOf, waitForState } from './analysis-helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(backends())('POST /agents/analyze and the task readbacks (%s)', (backend) => {
  it('incident mode: pending, then a completed status and a full result', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    const incident = await openIncident(app);
    const response = await analyze(app, { incident_id: incident });
    expect(response.statusCode).toBe(200);
    const created = response.json();
    expect(created).toEqual({
      task_id: expect.stringMatching(/^task-/),
      status: 'pending',
      message: `Analysis of incident ${incident} scheduled with 4 experts`,
      estimated_seconds: 30,
    });
    const status = await waitForState(app, created.task_id, 'COMPLETED');
    const at = new Date(clock.now()).toISOString();
    expect(status).toEqual({
      task_id: created.task_id,
      state: 'COMPLETED',
      progress: 100,
      current_step: 'Analysis complete',
      agents_completed: 4,
      total_agents: 4,
      started_at: at,
      completed_at: at,
      error: null,
    });
    const result = (await app.inject(`/api/v1/agents/result/${created.task_id}`)).json();
    expect(result).toEqual({
      task_id: created.task_id,
      state: 'COMPLETED',
      consensus_id: expect.stringMatching(/^consensus-/),
      incident_id: incident,
      recommended_action: 'restart_workload',
      recommended_kubectl: 'kubectl rollout restart deployment/cart -n shop',
      risk_level: expect.stringMatching(/^(low|medium|high|critical)$/),
      final_reasoning: expect.stringContaining('restart_workload recommended by'),
      consensus_score: expect.any(Number),
      opinions: expect.any(Array),
      dissenting_opinions: expect.any(Array),
      // spec: "created_at ... taken from the task's completion time"
      created_at: status.completed_at,
    });
    expect(result.opinions.map((o: Json) => o.agent)).toEqual([
      'stability',
      'security',
      'cost',
      'performance',
    ]);
    for (const opinion of result.opinions) {
      expect(Object.keys(opinion).sort()).toEqual(
        [
          'agent',
          'confidence',
          'cost',
          'reasoning',
          'recommended_action',
          'recommended_kubectl',
          'risk_level',
          'tokens',
          'weight',
        ].sort(),
      );
    }
    const row = await app.services.store.db
      .selectFrom('analysis_tasks')
      .select(['trigger', 'incident_id'])
      .where('id', '=', created.task_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ trigger: 'manual', incident_id: incident });
  });

  it('manual mode: severity with affected services, alert names and metrics', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const created = (
      await analyze(app, {
        severity: 'P1',
        affected_services: ['checkout'],
        alert_names: ['ContainerOOMKilled', 'KubeMemoryOvercommit'],
        context: { namespace: 'shop', metrics: { memory_percent: 97, replicas: 3 } },
      })
    ).json();
    expect(created.message).toBe('Analysis of checkout scheduled with 4 experts');
    await waitForState(app, created.task_id, 'COMPLETED');
    const result = (await app.inject(`/api/v1/agents/result/${created.task_id}`)).json();
    expect(result).toMatchObject({
      incident_id: null,
      recommended_action: 'increase_resources',
      recommended_kubectl:
        'kubectl set resources deployment/checkout -n shop --limits=memory=768Mi',
    });
    expect(ISO.test(result.created_at)).toBe(true);
  });

  it('reads the operation log: repairs that keep being needed call for a permanent fix', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const incident = await openIncident(app, { target_resource: 'pay-6b8f9c7d5-k2p9x' });
    for (let i = 0; i < 3; i += 1) {
      await app.services.oplog.append(
        {
          type: 'EXECUTION_COMPLETED',
          incidentId: incident,
          approvalId: null,
          actor: 'auto-repair',
          actionDetail: 'Playbook restart-pod via kubectl: 1/1 steps succeeded',
          success: true,
          errorMessage: null,
          context: { playbook_id: 'restart-pod', executor: 'kubectl' },
        },
        app.services.clock.now(),
      );
    }
    const created = (await analyze(app, { incident_id: incident })).json();
    await waitForState(app, created.task_id, 'COMPLETED');
    const result = (await app.inject(`/api/v1/agents/result/${created.task_id}`)).json();
    expect(result.recommended_action).toBe('escalate_permanent_fix');
    expect(result.opinions[0].reasoning).toContain('3 successful repairs');
  });

  it('a task not yet run: the spec defaults, and a result with every field null', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    await insertTask(app.services.store.db, {
      id: 'task-queued',
      request: { severity: 'P3', affected_services: ['cart'] },
      incidentId: null,
      now: 1,
    });
    expect(await statusOf(app, 'task-queued')).toEqual({
      task_id: 'task-queued',
      state: 'PENDING',
      progress: 0,
      current_step: null,
      agents_completed: 0,
      total_agents: 4,
      started_at: null,
      completed_at: null,
      error: null,
    });
    expect((await app.inject('/api/v1/agents/result/task-queued')).json()).toEqual({
      task_id: 'task-queued',
      state: 'PENDING',
      consensus_id: null,
      incident_id: null,
      recommended_action: null,
      recommended_kubectl: null,
      risk_level: null,
      final_reasoning: null,
      consensus_score: null,
      opinions: null,
      dissenting_opinions: null,
      created_at: null,
    });
  });
});

describe('analysis errors', () => {
  const missing = {
    detail: 'Provide incident_id, or severity with affected_services',
    code: 'analysis_input_missing',
  };

  it.each<[string, unknown]>([
    ['an empty body', {}],
    ['severity alone', { severity: 'P1' }],
    ['affected services alone', { affected_services: ['cart'] }],
    ['an empty service list', { severity: 'P1', affected_services: [] }],
    ['a blank incident id', { incident_id: '' }],
    ['only extras', { alert_names: ['X'], context: { a: 1 } }],
  ])('400 for %s', async (_case, body) => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const response = await analyze(app, body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(missing);
  });

  it('400 without any body', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const response = await app.inject({ method: 'POST', url: '/api/v1/agents/analyze' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(missing);
  });

  it('422 for a severity outside P0-P3 or a wrong type', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const bad = await analyze(app, { severity: 'P9', affected_services: ['cart'] });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail).toContain('body.severity must be one of: P0, P1, P2, P3');
    expect((await analyze(app, { incident_id: 42 })).statusCode).toBe(422);
  });

  it('404 for an unknown incident, and for an unknown task on status, result and stream', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const incident = await analyze(app, { incident_id: 'inc-missing' });
    expect(incident.statusCode).toBe(404);
    expect(incident.json()).toEqual({
      detail: 'Incident not found: inc-missing',
      code: 'incident_not_found',
    });
    for (const path of ['status', 'result', 'stream']) {
      const response = await app.inject(`/api/v1/agents/${path}/task-missing`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        detail: 'Task not found: task-missing',
        code: 'task_not_found',
      });
    }
  });
});
