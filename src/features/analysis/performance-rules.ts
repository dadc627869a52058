import type { ActionName, AnalysisSubject, Opinion } from './analysis-types.js';
import {
  baselineAction,
  readMetrics,
  ruleOpinion,
  type SubjectMetrics,
  severityRisk,
  shiftRisk,
} from './expert-kit.js';

/** Thresholds of a saturated resource, and of an extreme one that raises the risk. */
const LIMITS = {
  memory_percent: { high: 90, extreme: 97 },
  cpu_percent: { high: 85, extreme: 97 },
  latency_p99_ms: { high: 1000, extreme: 5000 },
  error_rate_percent: { high: 5, extreme: 20 },
} as const;

type Measured = keyof typeof LIMITS;

const ACTION_FOR: Record<Measured, ActionName> = {
  memory_percent: 'increase_resources',
  cpu_percent: 'scale_out',
  latency_p99_ms: 'scale_out',
  error_rate_percent: 'rollback_deployment',
};

/** The alert types that name the same bottleneck as a metric. */
const TYPES_FOR: Record<Measured, readonly string[]> = {
  memory_percent: ['oom_killed', 'high_memory'],
  cpu_percent: ['high_cpu', 'cpu_throttling'],
  latency_p99_ms: ['latency'],
  error_rate_percent: ['error_rate'],
};

/** How each metric reads in a sentence. */
const SAY: Record<Measured, (value: number) => string> = {
  memory_percent: (value) => `memory use ${value}%`,
  cpu_percent: (value) => `CPU use ${value}%`,
  latency_p99_ms: (value) => `p99 latency ${value} ms`,
  error_rate_percent: (value) => `error rate ${value}%`,
};

function describe(metrics: SubjectMetrics): string {
  return (Object.keys(LIMITS) as Measured[])
    .flatMap((name) => (metrics[name] === undefined ? [] : [SAY[name](metrics[name])]))
    .join(', ');
}

/**
 * Reads the metrics in the context: the first saturated resource, in the order memory, CPU,
 * latency, error rate (memory first: an OOM kill takes the pod down, CPU only slows it), or the
 * resource the alert type names. Without metrics it follows the baseline with low confidence.
 */
export function performanceOpinion(subject: AnalysisSubject): Opinion {
  const metrics = readMetrics(subject.context);
  const measured = describe(metrics);
  const severe = severityRisk(subject.severity);
  const names = Object.keys(LIMITS) as Measured[];
  const saturated = names.find((name) => (metrics[name] ?? -1) >= LIMITS[name].high);
  const named = names.find((name) => TYPES_FOR[name].some((t) => subject.alert_types.includes(t)));
  const bottleneck = saturated ?? named;
  if (bottleneck) {
    const value = metrics[bottleneck];
    const extreme = value !== undefined && value >= LIMITS[bottleneck].extreme;
    const evidence =
      value !== undefined
        ? `${SAY[bottleneck](value)} is at or over the threshold of ${LIMITS[bottleneck].high}`
        : `the alert types (${subject.alert_types.join(', ')}) name the bottleneck`;
    return ruleOpinion('performance', subject, metrics, {
      action: ACTION_FOR[bottleneck],
      risk: shiftRisk(severe, extreme ? 1 : 0),
      confidence: 0.5 + (saturated ? 0.2 : 0) + (named ? 0.15 : 0),
      reasons: [
        `${evidence[0]!.toUpperCase()}${evidence.slice(1)}: ${ACTION_FOR[bottleneck]} relieves the bottleneck.`,
      ],
    });
  }
  if (measured === '') {
    const baseline = baselineAction(subject);
    return ruleOpinion('performance', subject, metrics, {
      action: baseline,
      risk: severe,
      confidence: 0.35,
      reasons: [`No metrics in the context; following the usual fix, ${baseline}.`],
    });
  }
  return ruleOpinion('performance', subject, metrics, {
    action: 'monitor',
    risk: shiftRisk(severe, -1),
    confidence: 0.6,
    reasons: [`The metrics are within normal ranges (${measured}); no resource is the bottleneck.`],
  });
}
