import type { AnalysisSubject, Opinion } from './analysis-types.js';
import { baselineAction, readMetrics, ruleOpinion, severityRisk, shiftRisk } from './expert-kit.js';

/** Restarts beyond which restarting again is no fix: the new pods fail the same way. */
const RESTARTS_NOT_HELPING = 5;
/** Successful repairs after which the problem needs a permanent fix (CONTRACT's auto-repair threshold). */
const REPAIRS_BEFORE_PERMANENT_FIX = 3;

/**
 * Availability first: the fix that restores service soonest, unless the history says that fix
 * no longer holds (recurring incidents, repairs that keep being needed or keep failing).
 */
export function stabilityOpinion(subject: AnalysisSubject): Opinion {
  const metrics = readMetrics(subject.context);
  const { frequency, repairs } = subject;
  const baseline = baselineAction(subject);
  const reasons: string[] = [];
  let action = baseline;
  let risk = severityRisk(subject.severity);
  let confidence = 0.5;

  if (baseline === 'investigate') {
    reasons.push(
      `The alert types (${subject.alert_types.join(', ') || 'none'}) have no known first fix; find the cause before changing anything.`,
    );
  } else {
    confidence += 0.15;
    reasons.push(`${subject.alert_types.join(', ')} is usually restored by ${baseline}.`);
  }
  if (
    frequency.escalation_level === 'PERMANENT_FIX' ||
    repairs.succeeded >= REPAIRS_BEFORE_PERMANENT_FIX
  ) {
    action = 'escalate_permanent_fix';
    confidence += 0.15;
    reasons.push(
      `It keeps coming back (${frequency.count_7d} occurrences in 7 days, ${repairs.succeeded} successful repairs), so another ${baseline} only buys time.`,
    );
  } else if (
    baseline === 'restart_workload' &&
    (repairs.failed >= 2 || (metrics.restart_count ?? 0) >= RESTARTS_NOT_HELPING)
  ) {
    action = 'rollback_deployment';
    reasons.push(
      `Restarting is not helping (${repairs.failed} failed repairs, ${metrics.restart_count ?? 0} restarts): roll back to the last good version.`,
    );
  }
  if (frequency.escalation_level === 'ESCALATE' || subject.hit_count >= 10) {
    risk = shiftRisk(risk, 1);
    reasons.push(
      `${subject.hit_count} alerts merged into this incident and ${frequency.count_24h} occurred in 24 hours.`,
    );
  } else if (subject.hit_count >= 3) {
    confidence += 0.1;
  }
  if (subject.affected_services.length > 1) {
    risk = shiftRisk(risk, 1);
    reasons.push(`${subject.affected_services.length} services are affected at once.`);
  }
  return ruleOpinion('stability', subject, metrics, { action, risk, reasons, confidence });
}
