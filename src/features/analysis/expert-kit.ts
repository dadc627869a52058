import { ownValue } from '../../support/own-value.js';
import { alertTypeFamily } from '../repair/alert-type-families.js';
import type {
  ActionName,
  AgentName,
  AnalysisSubject,
  Opinion,
  RiskLevel,
  Severity,
} from './analysis-types.js';

/** What the rule-based experts share: metrics read from the context, the baseline fix, kubectl. */

export interface SubjectMetrics {
  cpu_percent?: number;
  memory_percent?: number;
  error_rate_percent?: number;
  latency_p99_ms?: number;
  restart_count?: number;
  replicas?: number;
  cost_per_hour?: number;
  memory_limit_mi?: number;
}

/** Names a sender may use for each metric, at the top of `context` or under `context.metrics`. */
const METRIC_NAMES: Record<keyof SubjectMetrics, readonly string[]> = {
  cpu_percent: ['cpu_percent', 'cpu_usage_percent', 'cpu'],
  memory_percent: ['memory_percent', 'memory_usage_percent', 'memory'],
  error_rate_percent: ['error_rate_percent', 'error_rate'],
  latency_p99_ms: ['latency_p99_ms', 'p99_latency_ms', 'p99_ms'],
  restart_count: ['restart_count', 'restarts'],
  replicas: ['replicas', 'replica_count'],
  cost_per_hour: ['cost_per_hour', 'hourly_cost_usd', 'cost_per_hour_usd'],
  memory_limit_mi: ['memory_limit_mi', 'memory_limit_mib'],
};

function numberOf(value: unknown): number | undefined {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof parsed === 'number' && Number.isFinite(parsed) ? parsed : undefined;
}

export function readMetrics(context: Record<string, unknown>): SubjectMetrics {
  const nested = context.metrics;
  const sources = [
    context,
    typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>) : {},
  ];
  const metrics: SubjectMetrics = {};
  for (const [metric, names] of Object.entries(METRIC_NAMES) as [
    keyof SubjectMetrics,
    readonly string[],
  ][]) {
    for (const source of sources) {
      const found = names.map((name) => numberOf(source[name])).find((v) => v !== undefined);
      if (found !== undefined && metrics[metric] === undefined) metrics[metric] = found;
    }
  }
  // An error rate of 0.07 is a fraction; 7 is already a percentage.
  if (metrics.error_rate_percent !== undefined && metrics.error_rate_percent <= 1) {
    metrics.error_rate_percent *= 100;
  }
  return metrics;
}

/** The usual first fix for each family of alert types (alert-type-families.ts). */
const FAMILY_ACTIONS: Record<string, ActionName> = {
  workload_health: 'restart_workload',
  memory: 'increase_resources',
  compute: 'scale_out',
  rollout: 'rollback_deployment',
  certificates: 'renew_certificate',
};
const TYPE_ACTIONS: Record<string, ActionName> = {
  latency: 'scale_out',
  error_rate: 'rollback_deployment',
};

/** The operational fix the alert types point to, before any expert's own concerns. */
export function baselineAction(subject: AnalysisSubject): ActionName {
  for (const type of subject.alert_types) {
    const action =
      ownValue(TYPE_ACTIONS, type) ?? ownValue(FAMILY_ACTIONS, alertTypeFamily(type) ?? '');
    if (action) return action;
  }
  return 'investigate';
}

const RISKS: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];
const SEVERITY_RISK: Record<Severity, RiskLevel> = {
  P0: 'critical',
  P1: 'high',
  P2: 'medium',
  P3: 'low',
};

export function severityRisk(severity: Severity): RiskLevel {
  return SEVERITY_RISK[severity];
}

/** Moves a risk up (or down) the scale by `steps`, staying within it. */
export function shiftRisk(risk: RiskLevel, steps: number): RiskLevel {
  const index = Math.min(RISKS.length - 1, Math.max(0, RISKS.indexOf(risk) + steps));
  return RISKS[index]!;
}

/** A DNS-1123 name: anything else in a command line could be an injection. */
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

/** Replicas assumed when the context does not say: the usual minimum for availability. */
export const ASSUMED_REPLICAS = 2;
const ASSUMED_MEMORY_LIMIT_MI = 512;

/** The kubectl command for an action on the primary service, or null when none fits. */
export function kubectlFor(
  action: ActionName,
  subject: AnalysisSubject,
  metrics: SubjectMetrics,
): string | null {
  const service = subject.affected_services[0];
  const { namespace } = subject;
  if (!service || !K8S_NAME.test(service) || !K8S_NAME.test(namespace)) return null;
  const target = `deployment/${service} -n ${namespace}`;
  const replicas = Math.max(1, Math.round(metrics.replicas ?? ASSUMED_REPLICAS));
  switch (action) {
    case 'restart_workload':
      return `kubectl rollout restart ${target}`;
    case 'rollback_deployment':
      return `kubectl rollout undo ${target}`;
    case 'scale_out':
      return `kubectl scale ${target} --replicas=${replicas + Math.max(1, Math.ceil(replicas / 2))}`;
    case 'scale_in':
      return replicas > 1 ? `kubectl scale ${target} --replicas=${replicas - 1}` : null;
    case 'increase_resources': {
      const limit =
        Math.ceil(((metrics.memory_limit_mi ?? ASSUMED_MEMORY_LIMIT_MI) * 1.5) / 64) * 64;
      return `kubectl set resources ${target} --limits=memory=${limit}Mi`;
    }
    default:
      return null;
  }
}

export function clampConfidence(value: number): number {
  return Math.round(Math.min(0.95, Math.max(0.05, value)) * 100) / 100;
}

/** A rule-based opinion: no model, so no tokens and no cost. */
export function ruleOpinion(
  agent: AgentName,
  subject: AnalysisSubject,
  metrics: SubjectMetrics,
  choice: { action: ActionName; risk: RiskLevel; reasons: string[]; confidence: number },
): Opinion {
  return {
    agent,
    recommended_action: choice.action,
    recommended_kubectl: kubectlFor(choice.action, subject, metrics),
    risk_level: choice.risk,
    reasoning: choice.reasons.join(' '),
    confidence: clampConfidence(choice.confidence),
    weight: 1,
    tokens: 0,
    cost: 0,
  };
}

/** The words of the alert names, types, message and labels, lower-cased, for keyword rules. */
export function subjectText(subject: AnalysisSubject): string {
  return [
    ...subject.alert_names,
    ...subject.alert_types,
    subject.message ?? '',
    ...Object.entries(subject.labels).flat(),
    typeof subject.context.description === 'string' ? subject.context.description : '',
  ]
    .join(' ')
    .toLowerCase();
}
