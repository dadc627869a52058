import { describe, expect, it } from 'vitest';
import type {
  ActionName,
  AgentName,
  Opinion,
  RiskLevel,
} from '../../src/features/analysis/analysis-types.js';
import { buildConsensus, weightOf } from '../../src/features/analysis/consensus.js';

function opinion(agent: AgentName, action: ActionName, extra: Partial<Opinion> = {}): Opinion {
  return {
    agent,
    recommended_action: action,
    recommended_kubectl: null,
    risk_level: 'medium',
    reasoning: `${agent} says ${action}`,
    confidence: 0.5,
    tokens: 0,
    cost: 0,
    ...extra,
  };
}

describe('buildConsensus', () => {
  it.each<[string, Opinion[], ActionName, number]>([
    // [case, opinions, winning action, consensus_score]
    [
      'unanimous',
      [
        opinion('stability', 'restart_workload'),
        opinion('security', 'restart_workload'),
        opinion('cost', 'restart_workload'),
        opinion('performance', 'restart_workload'),
      ],
      'restart_workload',
      1,
    ],
    [
      'three to one',
      [
        opinion('stability', 'scale_out'),
        opinion('security', 'restart_workload'),
        opinion('cost', 'scale_out'),
        opinion('performance', 'scale_out'),
      ],
      'scale_out',
      0.75,
    ],
    [
      'weights beat heads: one expert of weight 3 against two of weight 1',
      [
        opinion('stability', 'restart_workload'),
        opinion('security', 'rotate_credentials', { weight: 3 }),
        opinion('cost', 'restart_workload'),
      ],
      'rotate_credentials',
      0.6,
    ],
    [
      'tie on weight: the larger summed confidence wins',
      [
        opinion('stability', 'restart_workload', { confidence: 0.4 }),
        opinion('security', 'restart_workload', { confidence: 0.4 }),
        opinion('cost', 'scale_out', { confidence: 0.5 }),
        opinion('performance', 'scale_out', { confidence: 0.5 }),
      ],
      'scale_out',
      0.5,
    ],
    [
      'tie on weight and confidence: the group with the expert listed first (stability)',
      [
        opinion('performance', 'scale_out', { confidence: 0.6 }),
        opinion('cost', 'monitor', { confidence: 0.6 }),
        opinion('security', 'monitor', { confidence: 0.6 }),
        opinion('stability', 'scale_out', { confidence: 0.6 }),
      ],
      'scale_out',
      0.5,
    ],
    [
      'four-way tie, equal confidence: stability',
      [
        opinion('stability', 'restart_workload'),
        opinion('security', 'rotate_credentials'),
        opinion('cost', 'monitor'),
        opinion('performance', 'scale_out'),
      ],
      'restart_workload',
      0.25,
    ],
    [
      'fractional weights that tie within rounding',
      [
        opinion('stability', 'monitor', { weight: 0.1, confidence: 0.3 }),
        opinion('security', 'monitor', { weight: 0.2, confidence: 0.3 }),
        opinion('cost', 'scale_in', { weight: 0.3, confidence: 0.6 }),
      ],
      'monitor',
      0.5,
    ],
    [
      'a bad weight counts as 1',
      [
        opinion('stability', 'monitor', { weight: -2 }),
        opinion('security', 'scale_out', { weight: Number.NaN }),
        opinion('cost', 'scale_out'),
      ],
      'scale_out',
      0.6667,
    ],
    ['one opinion (the others failed)', [opinion('cost', 'scale_in')], 'scale_in', 1],
    [
      'all weights zero: score 0, confidence decides',
      [
        opinion('stability', 'monitor', { weight: 0, confidence: 0.2 }),
        opinion('security', 'investigate', { weight: 0, confidence: 0.9 }),
      ],
      'investigate',
      0,
    ],
  ])('%s', (_case, opinions, action, score) => {
    const consensus = buildConsensus(opinions, [], 'c-1');
    expect(consensus.recommended_action).toBe(action);
    expect(consensus.consensus_score).toBe(score);
    const dissenters = opinions.filter((o) => o.recommended_action !== action);
    expect(consensus.dissenting_opinions).toHaveLength(dissenters.length);
  });

  it('is the same whatever order the opinions arrive in', () => {
    const opinions = [
      opinion('stability', 'restart_workload', { confidence: 0.7 }),
      opinion('security', 'rotate_credentials', { confidence: 0.8 }),
      opinion('cost', 'monitor', { confidence: 0.5 }),
      opinion('performance', 'scale_out', { confidence: 0.7 }),
    ];
    const expected = buildConsensus(opinions, [], 'c');
    for (const order of [
      [3, 2, 1, 0],
      [1, 3, 0, 2],
      [2, 0, 3, 1],
    ]) {
      expect(
        buildConsensus(
          order.map((i) => opinions[i]!),
          [],
          'c',
        ),
      ).toEqual(expected);
    }
    expect(expected.recommended_action).toBe('rotate_credentials');
    expect(expected.opinions.map((o) => o.agent)).toEqual([
      'stability',
      'security',
      'cost',
      'performance',
    ]);
  });

  it('takes the kubectl of the most confident supporter that has one, and the gravest risk', () => {
    const consensus = buildConsensus(
      [
        opinion('stability', 'scale_out', {
          confidence: 0.9,
          recommended_kubectl: null,
          risk_level: 'low',
        }),
        opinion('cost', 'scale_out', {
          confidence: 0.6,
          recommended_kubectl: 'kubectl scale deployment/a --replicas=3',
          risk_level: 'high',
        }),
        opinion('performance', 'scale_out', {
          confidence: 0.7,
          recommended_kubectl: 'kubectl scale deployment/a --replicas=4',
          risk_level: 'medium',
        }),
        opinion('security', 'investigate', { risk_level: 'critical' }),
      ],
      [],
      'c',
    );
    expect(consensus.recommended_kubectl).toBe('kubectl scale deployment/a --replicas=4');
    expect(consensus.risk_level).toBe<RiskLevel>('high');
    expect(consensus.dissenting_opinions).toEqual([
      'security recommends investigate: security says investigate',
    ]);
  });

  it('explains the decision and names the experts not heard', () => {
    const consensus = buildConsensus(
      [opinion('stability', 'restart_workload'), opinion('performance', 'restart_workload')],
      [{ agent: 'cost', error: 'LLM request failed: HTTP 500' }],
      'c-9',
    );
    expect(consensus).toMatchObject({ consensus_id: 'c-9', consensus_score: 1 });
    expect(consensus.final_reasoning).toContain(
      'restart_workload recommended by stability, performance',
    );
    expect(consensus.final_reasoning).toContain('Not heard: cost (LLM request failed: HTTP 500)');
    expect(consensus.opinions.every((o) => o.weight === 1)).toBe(true);
  });

  it('refuses to build on no opinion', () => {
    expect(() => buildConsensus([], [], 'c')).toThrow(/at least one/);
  });

  it.each([
    [undefined, 1],
    [2, 2],
    [0, 0],
    [-1, 1],
    [Number.POSITIVE_INFINITY, 1],
  ])('weightOf(%s) = %s', (weight, expected) => {
    expect(weightOf(opinion('cost', 'monitor', { weight }))).toBe(expected);
  });
});
