import { describe, expect, it } from 'vitest';
import type {
  ActionName,
  AnalysisSubject,
  RiskLevel,
} from '../../src/features/analysis/analysis-types.js';
import { costOpinion } from '../../src/features/analysis/cost-rules.js';
import { kubectlFor, readMetrics } from '../../src/features/analysis/expert-kit.js';
import { performanceOpinion } from '../../src/features/analysis/performance-rules.js';
import { securityOpinion } from '../../src/features/analysis/security-rules.js';
import { stabilityOpinion } from '../../src/features/analysis/stability-rules.js';

function subject(overrides: Partial<AnalysisSubject> = {}): AnalysisSubject {
  return {
    incident_id: null,
    severity: 'P2',
    namespace: 'shop',
    affected_services: ['cart'],
    alert_names: ['KubePodCrashLooping'],
    alert_types: ['crash_loop'],
    hit_count: 1,
    message: null,
    labels: {},
    frequency: {
      count_1h: 1,
      count_24h: 1,
      count_7d: 1,
      count_30d: 1,
      auto_repair_count: 0,
      escalation_level: null,
    },
    repairs: { attempts: 0, succeeded: 0, failed: 0, playbooks: [] },
    context: {},
    ...overrides,
  };
}

const recurring = {
  frequency: {
    count_1h: 3,
    count_24h: 8,
    count_7d: 12,
    count_30d: 20,
    auto_repair_count: 3,
    escalation_level: 'PERMANENT_FIX' as const,
  },
  repairs: { attempts: 3, succeeded: 3, failed: 0, playbooks: ['restart-pod'] },
};

type Row = [string, Partial<AnalysisSubject>, ActionName, RiskLevel];

describe('stability expert', () => {
  it.each<Row>([
    ['crash loop: restart', {}, 'restart_workload', 'medium'],
    ['P0 is critical', { severity: 'P0' }, 'restart_workload', 'critical'],
    ['OOM: more memory', { alert_types: ['oom_killed'] }, 'increase_resources', 'medium'],
    [
      'stuck rollout: roll back',
      { alert_types: ['rollout_stuck'] },
      'rollback_deployment',
      'medium',
    ],
    ['unknown type: investigate', { alert_types: ['custom'] }, 'investigate', 'medium'],
    ['recurring: permanent fix', recurring, 'escalate_permanent_fix', 'medium'],
    [
      'restarts not helping: roll back',
      { repairs: { attempts: 2, succeeded: 0, failed: 2, playbooks: [] } },
      'rollback_deployment',
      'medium',
    ],
    ['many restarts: roll back', { context: { restarts: 12 } }, 'rollback_deployment', 'medium'],
    ['many hits raise the risk', { hit_count: 15 }, 'restart_workload', 'high'],
    [
      'several services raise the risk',
      { affected_services: ['cart', 'checkout'] },
      'restart_workload',
      'high',
    ],
  ])('%s', (_case, overrides, action, risk) => {
    const opinion = stabilityOpinion(subject(overrides));
    expect(opinion).toMatchObject({
      agent: 'stability',
      recommended_action: action,
      risk_level: risk,
    });
  });
});

describe('security expert', () => {
  it.each<Row>([
    ['no indicator: no objection, low risk', {}, 'restart_workload', 'low'],
    ['intrusion', { message: 'Suspicious outbound traffic from pod' }, 'investigate', 'critical'],
    ['a CVE', { alert_names: ['CVE-2024-3094 detected'] }, 'investigate', 'critical'],
    [
      'rejected credentials',
      { message: '401 Unauthorized from registry' },
      'rotate_credentials',
      'high',
    ],
    [
      'credentials at P0',
      { severity: 'P0', labels: { reason: 'token expired' } },
      'rotate_credentials',
      'critical',
    ],
    ['certificate expiry', { alert_types: ['certificate_expiry'] }, 'renew_certificate', 'high'],
  ])('%s', (_case, overrides, action, risk) => {
    const opinion = securityOpinion(subject(overrides));
    expect(opinion).toMatchObject({
      agent: 'security',
      recommended_action: action,
      risk_level: risk,
    });
  });
});

describe('cost expert', () => {
  it.each<Row>([
    ['a restart costs nothing', {}, 'restart_workload', 'low'],
    ['recurring toil: permanent fix', recurring, 'escalate_permanent_fix', 'medium'],
    [
      'idle replicas: scale in',
      { alert_types: ['high_cpu'], context: { metrics: { cpu: 12, memory: 20, replicas: 6 } } },
      'scale_in',
      'low',
    ],
    [
      'capacity at P3 without saturation: wait',
      { severity: 'P3', alert_types: ['high_cpu'] },
      'monitor',
      'low',
    ],
    [
      'capacity at P1: accept',
      { severity: 'P1', alert_types: ['high_cpu'] },
      'scale_out',
      'medium',
    ],
    [
      'capacity saturated at P3: accept',
      { severity: 'P3', alert_types: ['high_memory'], context: { memory_percent: 96 } },
      'increase_resources',
      'low',
    ],
  ])('%s', (_case, overrides, action, risk) => {
    const opinion = costOpinion(subject(overrides));
    expect(opinion).toMatchObject({ agent: 'cost', recommended_action: action, risk_level: risk });
  });

  it('prices the replicas it saves from the context', () => {
    const opinion = costOpinion(
      subject({ context: { cpu_percent: 10, memory_percent: 10, replicas: 4, cost_per_hour: 2 } }),
    );
    expect(opinion.reasoning).toContain('$0.50/h per replica');
    expect(opinion.recommended_kubectl).toBe('kubectl scale deployment/cart -n shop --replicas=3');
  });
});

describe('performance expert', () => {
  it.each<Row>([
    ['no metrics: follow the usual fix', {}, 'restart_workload', 'medium'],
    ['memory saturated', { context: { memory_percent: 93 } }, 'increase_resources', 'medium'],
    ['CPU extreme raises the risk', { context: { cpu_percent: 99 } }, 'scale_out', 'high'],
    ['slow p99', { context: { metrics: { p99_latency_ms: '2500' } } }, 'scale_out', 'medium'],
    ['errors after a release', { context: { error_rate: 0.08 } }, 'rollback_deployment', 'medium'],
    [
      'memory before CPU',
      { context: { cpu_percent: 90, memory_percent: 91 } },
      'increase_resources',
      'medium',
    ],
    [
      'healthy metrics: monitor',
      { context: { cpu_percent: 40, memory_percent: 50 } },
      'monitor',
      'low',
    ],
    ['type names the bottleneck', { alert_types: ['latency'] }, 'scale_out', 'medium'],
  ])('%s', (_case, overrides, action, risk) => {
    const opinion = performanceOpinion(subject(overrides));
    expect(opinion).toMatchObject({
      agent: 'performance',
      recommended_action: action,
      risk_level: risk,
    });
  });
});

describe('every rule expert', () => {
  const experts = [stabilityOpinion, securityOpinion, costOpinion, performanceOpinion];

  it('is deterministic, free, and explains itself', () => {
    for (const opinionOf of experts) {
      const first = opinionOf(subject({ context: { cpu_percent: 91 } }));
      expect(opinionOf(subject({ context: { cpu_percent: 91 } }))).toEqual(first);
      expect(first).toMatchObject({ tokens: 0, cost: 0, weight: 1 });
      expect(first.reasoning.length).toBeGreaterThan(10);
      expect(first.confidence).toBeGreaterThan(0);
      expect(first.confidence).toBeLessThanOrEqual(1);
    }
  });
});

describe('kubectlFor', () => {
  it.each<[ActionName, Partial<AnalysisSubject>, Record<string, unknown>, string | null]>([
    ['restart_workload', {}, {}, 'kubectl rollout restart deployment/cart -n shop'],
    ['rollback_deployment', {}, {}, 'kubectl rollout undo deployment/cart -n shop'],
    ['scale_out', {}, { replicas: 4 }, 'kubectl scale deployment/cart -n shop --replicas=6'],
    ['scale_out', {}, {}, 'kubectl scale deployment/cart -n shop --replicas=3'],
    ['scale_in', {}, { replicas: 1 }, null],
    [
      'increase_resources',
      {},
      { memory_limit_mi: 1000 },
      'kubectl set resources deployment/cart -n shop --limits=memory=1536Mi',
    ],
    ['investigate', {}, {}, null],
    ['restart_workload', { affected_services: ['cart; rm -rf /'] }, {}, null],
    ['restart_workload', { affected_services: [] }, {}, null],
  ])('%s %j %j', (action, overrides, context, expected) => {
    const s = subject({ ...overrides, context });
    expect(kubectlFor(action, s, readMetrics(s.context))).toBe(expected);
  });
});
