import type { AnalysisSubject, Opinion } from './analysis-types.js';
import {
  ASSUMED_REPLICAS,
  baselineAction,
  readMetrics,
  ruleOpinion,
  severityRisk,
  shiftRisk,
} from './expert-kit.js';

/** Below these, the workload is over-provisioned (percent of its requests). */
const IDLE_CPU = 25;
const IDLE_MEMORY = 35;
/** Above this, capacity is short whatever the severity: adding it is not waste. */
const SATURATED = 90;
const REPAIRS_ARE_TOIL = 3;

/**
 * Weighs what each fix costs to run and to keep doing: capacity only when the incident or the
 * saturation justifies it, fewer replicas when they idle, a permanent fix for recurring toil.
 */
export function costOpinion(subject: AnalysisSubject): Opinion {
  const metrics = readMetrics(subject.context);
  const baseline = baselineAction(subject);
  const urgent = subject.severity === 'P0' || subject.severity === 'P1';
  const replicas = metrics.replicas ?? ASSUMED_REPLICAS;
  const perReplica =
    metrics.cost_per_hour !== undefined ? metrics.cost_per_hour / Math.max(1, replicas) : undefined;
  const price = perReplica !== undefined ? ` (about $${perReplica.toFixed(2)}/h per replica)` : '';
  const { frequency, repairs } = subject;

  if (frequency.escalation_level === 'PERMANENT_FIX' || repairs.attempts >= REPAIRS_ARE_TOIL) {
    return ruleOpinion('cost', subject, metrics, {
      action: 'escalate_permanent_fix',
      risk: 'medium',
      confidence: 0.7,
      reasons: [
        `${repairs.attempts} repairs and ${frequency.count_30d} occurrences in 30 days are recurring toil; a permanent fix costs less than repeating ${baseline}.`,
      ],
    });
  }
  const idle =
    metrics.cpu_percent !== undefined &&
    metrics.memory_percent !== undefined &&
    metrics.cpu_percent < IDLE_CPU &&
    metrics.memory_percent < IDLE_MEMORY;
  if (idle && replicas >= 3 && !urgent && baseline !== 'rollback_deployment') {
    return ruleOpinion('cost', subject, metrics, {
      action: 'scale_in',
      risk: 'low',
      confidence: 0.65,
      reasons: [
        `${replicas} replicas run at ${metrics.cpu_percent}% CPU and ${metrics.memory_percent}% memory: one fewer saves money${price} without hurting capacity.`,
      ],
    });
  }
  if (baseline === 'scale_out' || baseline === 'increase_resources') {
    const saturated = Math.max(metrics.cpu_percent ?? 0, metrics.memory_percent ?? 0) >= SATURATED;
    if (urgent || saturated) {
      return ruleOpinion('cost', subject, metrics, {
        action: baseline,
        risk: shiftRisk(severityRisk(subject.severity), -1),
        confidence: 0.6,
        reasons: [
          `${urgent ? `At ${subject.severity} an outage` : 'Saturated capacity'} costs more than the extra capacity${price}; accept ${baseline} and right-size afterwards.`,
        ],
      });
    }
    return ruleOpinion('cost', subject, metrics, {
      action: 'monitor',
      risk: 'low',
      confidence: 0.55,
      reasons: [
        `At ${subject.severity} with no saturation in the metrics, ${baseline} adds running cost${price} that is not justified yet; watch the trend and right-size.`,
      ],
    });
  }
  return ruleOpinion('cost', subject, metrics, {
    action: baseline,
    risk: 'low',
    confidence: 0.5,
    reasons: [`${baseline} adds no running cost.`],
  });
}
