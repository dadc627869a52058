import type { ErrorContext } from '../../ports/analyzer.js';

/** spec, Anomaly frequency: "escalation_level (null, REPEAT, ESCALATE or PERMANENT_FIX)". */
export type EscalationLevel = 'REPEAT' | 'ESCALATE' | 'PERMANENT_FIX';

export interface OccurrenceCounts {
  count_1h: number;
  count_24h: number;
  count_7d: number;
  count_30d: number;
  auto_repair_count: number;
}

/** spec, Anomaly frequency: the fields, all counts integers. */
export interface AnomalyFrequency extends OccurrenceCounts {
  anomaly_key: string;
  escalation_level: EscalationLevel | null;
}

export interface EscalationThresholds {
  permanentFixCount7d: number;
  permanentFixAutoRepairs: number;
  escalateCount24h: number;
  repeatCount24h: number;
}

/**
 * CONTRACT, Anomaly frequency: "`PERMANENT_FIX` when `count_7d` >= 10 or
 * `auto_repair_count` >= 3; else `ESCALATE` when `count_24h` >= 5; else `REPEAT` when
 * `count_24h` >= 2" (thresholds configurable).
 */
export const DEFAULT_ESCALATION_THRESHOLDS: Readonly<EscalationThresholds> = Object.freeze({
  permanentFixCount7d: 10,
  permanentFixAutoRepairs: 3,
  escalateCount24h: 5,
  repeatCount24h: 2,
});

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The counting windows of the spec's count_1h, count_24h, count_7d and count_30d. */
export const FREQUENCY_WINDOWS_MS = Object.freeze({
  count_1h: HOUR_MS,
  count_24h: DAY_MS,
  count_7d: 7 * DAY_MS,
  count_30d: 30 * DAY_MS,
});

/** CONTRACT, Anomaly frequency: `<source>:<project or namespace>:<alert type or culprit>`. */
export function anomalyKey(
  source: string,
  projectOrNamespace: string,
  alertTypeOrCulprit: string,
): string {
  return `${source}:${projectOrNamespace}:${alertTypeOrCulprit}`;
}

/** The key of a tracker issue: source `errtracker`, its project, its culprit (else its title). */
export function trackerAnomalyKey(ctx: ErrorContext): string {
  return anomalyKey('errtracker', ctx.project, ctx.culprit || ctx.title);
}

export function escalationLevel(
  counts: OccurrenceCounts,
  thresholds: Readonly<EscalationThresholds> = DEFAULT_ESCALATION_THRESHOLDS,
): EscalationLevel | null {
  if (
    counts.count_7d >= thresholds.permanentFixCount7d ||
    counts.auto_repair_count >= thresholds.permanentFixAutoRepairs
  ) {
    return 'PERMANENT_FIX';
  }
  if (counts.count_24h >= thresholds.escalateCount24h) return 'ESCALATE';
  if (counts.count_24h >= thresholds.repeatCount24h) return 'REPEAT';
  return null;
}

/**
 * Counts the occurrences in each window ending at `nowMs`. An occurrence at `nowMs` counts;
 * one exactly a window old has left that window; one later than `nowMs` (clock skew
 * between writers) is not counted at all.
 */
export function countsFromOccurrences(
  occurrenceTimesMs: readonly number[],
  nowMs: number,
  autoRepairCount: number,
): OccurrenceCounts {
  const within = (windowMs: number) =>
    occurrenceTimesMs.filter((at) => at <= nowMs && nowMs - at < windowMs).length;
  return {
    count_1h: within(FREQUENCY_WINDOWS_MS.count_1h),
    count_24h: within(FREQUENCY_WINDOWS_MS.count_24h),
    count_7d: within(FREQUENCY_WINDOWS_MS.count_7d),
    count_30d: within(FREQUENCY_WINDOWS_MS.count_30d),
    auto_repair_count: autoRepairCount,
  };
}

/** Assembles the spec's record from a key and its counts. */
export function anomalyFrequency(
  key: string,
  counts: OccurrenceCounts,
  thresholds: Readonly<EscalationThresholds> = DEFAULT_ESCALATION_THRESHOLDS,
): AnomalyFrequency {
  return {
    anomaly_key: key,
    count_1h: counts.count_1h,
    count_24h: counts.count_24h,
    count_7d: counts.count_7d,
    count_30d: counts.count_30d,
    auto_repair_count: counts.auto_repair_count,
    escalation_level: escalationLevel(counts, thresholds),
  };
}
