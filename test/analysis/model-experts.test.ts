import { describe, expect, it } from 'vitest';
import { parseOpinion, systemPromptFor } from '../../src/adapters/analyzers/model-experts.js';
import { buildTestApp } from '../helpers/build-app.js';
import { chatCompletion, startUpstream } from '../helpers/upstreams.js';
import {
  agentOf,
  analyze,
  expertModel,
  followStream,
  type Json,
  listen,
  openIncident,
  waitForState,
} from './analysis-helpers.js';

function openaiEnv(url: string, model = 'gpt-4o-mini') {
  return { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: url, LLM_MODEL: model };
}

async function resultOf(app: Awaited<ReturnType<typeof buildTestApp>>['app'], taskId: string) {
  return (await app.inject(`/api/v1/agents/result/${taskId}`)).json() as Json;
}

describe('model experts (ANALYZER=openai)', () => {
  it('one call per expert, each with its own system prompt, priced from the usage', async () => {
    const { upstream } = await expertModel();
    const { app } = await buildTestApp({ env: openaiEnv(upstream.url) });
    const incident = await openIncident(app);
    const created = (await analyze(app, { incident_id: incident, context: { cpu: 93 } })).json();
    await waitForState(app, created.task_id, 'COMPLETED');

    const calls = upstream.requests.filter((r) => r.url === '/chat/completions');
    expect(calls).toHaveLength(4);
    const prompts = calls.map((call) => (call.body as Json).messages[0].content as string);
    expect(new Set(prompts).size).toBe(4);
    expect(new Set(calls.map(agentOf))).toEqual(
      new Set(['stability', 'security', 'cost', 'performance']),
    );
    for (const call of calls) {
      const body = call.body as Json;
      expect(body).toMatchObject({
        model: 'gpt-4o-mini',
        response_format: { type: 'json_object' },
      });
      const subject = JSON.parse(body.messages[1].content);
      expect(subject).toMatchObject({
        incident_id: incident,
        severity: 'P1',
        namespace: 'shop',
        affected_services: ['cart'],
        alert_types: ['crash_loop'],
        context: { cpu: 93 },
      });
    }

    const result = await resultOf(app, created.task_id);
    // stability and cost say restart, security rotate, performance scale (analysis-helpers.ts).
    expect(result).toMatchObject({
      recommended_action: 'restart_workload',
      consensus_score: 0.5,
      risk_level: 'medium',
    });
    expect(result.dissenting_opinions).toEqual([
      'security recommends rotate_credentials: security model reasoning',
      'performance recommends scale_out: performance model reasoning',
    ]);
    for (const opinion of result.opinions) {
      // usage 100 prompt + 50 completion tokens at $0.15 and $0.60 per million
      expect(opinion).toMatchObject({ tokens: 150, cost: 0.000045, confidence: 0.8 });
    }
  });

  it('one failing expert does not fail the task', async () => {
    const { upstream } = await expertModel({ fail: ['security'] });
    const { app } = await buildTestApp({ env: openaiEnv(upstream.url) });
    const base = await listen(app);
    const created = (await analyze(app, { severity: 'P2', affected_services: ['cart'] })).json();
    const stream = followStream(`${base}/api/v1/agents/stream/${created.task_id}`, '0');
    await stream.ended;
    const status = await waitForState(app, created.task_id, 'COMPLETED');
    expect(status.agents_completed).toBe(3);
    const failed = stream.events.find((e) =>
      e.data.current_step?.startsWith('security expert failed'),
    );
    expect(failed?.data).toMatchObject({ type: 'progress' });
    expect(failed?.data.current_step).toContain('HTTP 500');
    const result = await resultOf(app, created.task_id);
    expect(result.opinions.map((o: Json) => o.agent)).toEqual(['stability', 'cost', 'performance']);
    expect(result.final_reasoning).toContain('Not heard: security (LLM request failed: HTTP 500');
  });

  it('all experts failing fails the task with every reason', async () => {
    const upstream = await startUpstream(() => chatCompletion({ recommended_action: 'panic' }));
    const { app } = await buildTestApp({ env: openaiEnv(upstream.url) });
    const created = (await analyze(app, { severity: 'P2', affected_services: ['cart'] })).json();
    const status = await waitForState(app, created.task_id, 'FAILED');
    expect(status.error).toMatch(
      /^All 4 experts failed: stability: LLM response is not a valid opinion/,
    );
    expect(status.agents_completed).toBe(0);
    expect(status.completed_at).not.toBeNull();
    expect((await resultOf(app, created.task_id)).recommended_action).toBeNull();
  });

  it('shares the error-tracker analyzer breaker: calls after it opens are skipped', async () => {
    const upstream = await startUpstream(() => ({ status: 503, body: { error: 'overloaded' } }));
    const { app } = await buildTestApp({
      env: openaiEnv(upstream.url),
      resilience: { failureThreshold: 2, concurrency: 1 },
    });
    const created = (await analyze(app, { severity: 'P2', affected_services: ['cart'] })).json();
    const status = await waitForState(app, created.task_id, 'FAILED');
    // One at a time (concurrency 1): two failures open the breaker, the last two are skipped.
    expect(upstream.requests).toHaveLength(2);
    expect(status.error.match(/skipped: the analyzer circuit breaker is open/g)).toHaveLength(2);
    expect(app.services.analyzer.breakerState()).toBe('open');
  });
});

describe('parseOpinion', () => {
  it.each<[string, string, string | RegExp]>([
    ['not JSON', 'nope', /content is not JSON/],
    ['unknown action', '{"recommended_action":"reboot"}', /recommended_action must be one of/],
    ['bad risk', '{"recommended_action":"monitor","risk_level":"extreme"}', /bad risk_level/],
    [
      'no reasoning',
      '{"recommended_action":"monitor","risk_level":"low","reasoning":" "}',
      /"reasoning" must be/,
    ],
  ])('rejects %s', (_case, content, error) => {
    expect(() => parseOpinion('cost', content)).toThrow(error);
  });

  it('keeps only a kubectl command, and reads a percentage confidence', () => {
    const opinion = parseOpinion(
      'cost',
      '```json\n{"recommended_action":"scale_in","recommended_kubectl":"rm -rf /","risk_level":"LOW","reasoning":"idle","confidence":80}\n```',
    );
    expect(opinion).toEqual({
      agent: 'cost',
      recommended_action: 'scale_in',
      recommended_kubectl: null,
      risk_level: 'low',
      reasoning: 'idle',
      confidence: 0.8,
    });
  });

  it('gives each expert its own focus and the same answer format', () => {
    const prompts = (['stability', 'security', 'cost', 'performance'] as const).map(
      systemPromptFor,
    );
    expect(new Set(prompts).size).toBe(4);
    for (const prompt of prompts) expect(prompt).toContain('"recommended_action" (one of:');
  });
});
