import { describe, expect, it } from 'vitest';
import {
  type AnalysisBody,
  MISSING_INPUT,
  normalizeRequest,
} from '../../src/features/analysis/analysis-request.js';
import {
  AGENTS,
  type AgentName,
  type Expert,
  type Opinion,
} from '../../src/features/analysis/analysis-types.js';
import {
  type ExpertOutcome,
  RULE_EXPERTS,
  runExperts,
} from '../../src/features/analysis/experts.js';
import { progressAfter } from '../../src/features/analysis/progress-events.js';
import { buildTestApp } from '../helpers/build-app.js';

/** An expert of our own: answers `action` after `delayMs`, or throws `error`. */
function testExpert(
  agent: AgentName,
  delayMs: number,
  error?: string,
): Expert & { started: number } {
  const expert = {
    agent,
    started: 0,
    async analyze(): Promise<Opinion> {
      expert.started = Date.now();
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (error) throw new Error(error);
      return {
        agent,
        recommended_action: 'monitor',
        recommended_kubectl: null,
        risk_level: 'low',
        reasoning: 'fine',
        confidence: 0.5,
        tokens: 0,
        cost: 0,
      };
    },
  };
  return expert;
}

const subject = {
  incident_id: null,
  severity: 'P3' as const,
  namespace: 'default',
  affected_services: ['cart'],
  alert_names: [],
  alert_types: [],
  hit_count: 1,
  message: null,
  labels: {},
  frequency: {
    count_1h: 0,
    count_24h: 0,
    count_7d: 0,
    count_30d: 0,
    auto_repair_count: 0,
    escalation_level: null,
  },
  repairs: { attempts: 0, succeeded: 0, failed: 0, playbooks: [] },
  context: {},
};

describe('runExperts', () => {
  it('runs every expert at once; a failing one is an outcome, reported in arrival order', async () => {
    const experts = [
      testExpert('stability', 60),
      testExpert('security', 10, 'security model down'),
      testExpert('cost', 30),
      testExpert('performance', 0),
    ];
    const seen: ExpertOutcome[] = [];
    const started = Date.now();
    const outcomes = await runExperts(experts, subject, new AbortController().signal, async (o) => {
      seen.push(o);
    });
    // Concurrent: all started before the quickest one finished.
    for (const expert of experts) expect(expert.started - started).toBeLessThan(20);
    expect(seen.map((o) => o.agent)).toEqual(['performance', 'security', 'cost', 'stability']);
    expect(outcomes.map((o) => o.agent)).toEqual(['stability', 'security', 'cost', 'performance']);
    expect(outcomes[1]).toEqual({ agent: 'security', error: 'security model down' });
    expect(outcomes.filter((o) => o.opinion)).toHaveLength(3);
  });

  it('reports one outcome at a time, and fails the run when reporting fails', async () => {
    let inside = 0;
    let most = 0;
    await runExperts(RULE_EXPERTS, subject, new AbortController().signal, async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inside -= 1;
    });
    expect(most).toBe(1);
    await expect(
      runExperts(RULE_EXPERTS, subject, new AbortController().signal, async () => {
        throw new Error('lease lost');
      }),
    ).rejects.toThrow('lease lost');
  });
});

describe('progressAfter', () => {
  it.each([
    [0, 10],
    [1, 30],
    [2, 50],
    [3, 70],
    [4, 90],
  ])('%i of 4 experts settled: %i', (settled, progress) => {
    expect(progressAfter(settled, 4)).toBe(progress);
  });
});

describe('normalizeRequest', () => {
  it.each<[string, AnalysisBody | undefined, ReturnType<typeof normalizeRequest>]>([
    ['no body', undefined, undefined],
    ['empty', {}, undefined],
    ['severity only', { severity: 'P1' }, undefined],
    ['services only', { affected_services: ['cart'] }, undefined],
    ['empty service list', { severity: 'P1', affected_services: [] }, undefined],
    ['blank names', { severity: 'P1', affected_services: [' ', ''] }, undefined],
    ['blank incident id', { incident_id: '  ' }, undefined],
    ['nulls', { incident_id: null, severity: null, affected_services: null }, undefined],
    ['incident', { incident_id: 'inc-1' }, { incident_id: 'inc-1' }],
    [
      'manual, trimmed and de-duplicated',
      { severity: 'P0', affected_services: ['cart', ' cart ', 'pay'], alert_names: ['A', 'A'] },
      { severity: 'P0', affected_services: ['cart', 'pay'], alert_names: ['A'] },
    ],
    [
      'both: the incident with the extras',
      { incident_id: 'inc-1', severity: 'P3', affected_services: ['x'], context: { a: 1 } },
      { incident_id: 'inc-1', severity: 'P3', affected_services: ['x'], context: { a: 1 } },
    ],
  ])('%s', (_case, body, expected) => {
    expect(normalizeRequest(body)).toEqual(expected);
  });

  it('names both input modes in its 400 detail', () => {
    expect(MISSING_INPUT).toBe('Provide incident_id, or severity with affected_services');
  });
});

describe('the experts create-services chooses (ANALYZER)', () => {
  it('are the rule-based ones by default', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    expect(app.services.experts).toBe(RULE_EXPERTS);
  });

  it('are one model expert per agent with ANALYZER=openai', async () => {
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    const { experts } = app.services;
    expect(experts).not.toBe(RULE_EXPERTS);
    expect(experts.map((expert) => expert.agent)).toEqual([...AGENTS]);
  });
});
