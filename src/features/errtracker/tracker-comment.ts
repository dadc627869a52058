import type { ErrorAnalysis } from '../../ports/analyzer.js';
import { confidencePercent } from '../../support/confidence-percent.js';
import { DEFAULT_TIME_ZONE, formatInZone } from '../../support/zoned-time.js';
import type { AnomalyFrequency } from './anomaly-frequency.js';

/**
 * The markdown comment posted on the tracker issue after a successful analysis (spec,
 * Background analysis order: "The comment holds root cause, impact, fix suggestion,
 * prevention, the frequency table when shown, and the confidence as a percentage with a
 * Taipei timestamp"). `timeZone` is `DISPLAY_TZ` (CONTRACT, Configuration).
 */
export function trackerComment(
  analysis: ErrorAnalysis,
  frequency: AnomalyFrequency | null,
  nowMs: number,
  timeZone: string = DEFAULT_TIME_ZONE,
): string {
  const sections = [
    '## Automated error analysis',
    `**Root cause:** ${analysis.root_cause}`,
    `**Impact:** ${analysis.impact}`,
    `**Fix suggestion:** ${analysis.fix_suggestion}`,
    `**Prevention:** ${analysis.prevention}`,
  ];
  if (showsFrequency(frequency)) sections.push(frequencyTable(frequency));
  sections.push(
    `Confidence: ${confidencePercent(analysis.confidence)}% · Analyzed by ${analysis.analyzed_by} · ${formatInZone(nowMs, timeZone)}`,
  );
  return `${sections.join('\n\n')}\n`;
}

/** spec, Anomaly frequency: "shown in tracker comments only when count_24h is greater than 1". */
export function showsFrequency(frequency: AnomalyFrequency | null): frequency is AnomalyFrequency {
  return frequency !== null && frequency.count_24h > 1;
}

function frequencyTable(frequency: AnomalyFrequency): string {
  return [
    '### Frequency',
    '',
    '| 1h | 24h | 7d | 30d | Auto-repairs | Escalation |',
    '|---:|---:|---:|---:|---:|---|',
    `| ${frequency.count_1h} | ${frequency.count_24h} | ${frequency.count_7d} | ${frequency.count_30d} | ${frequency.auto_repair_count} | ${frequency.escalation_level ?? 'none'} |`,
  ].join('\n');
}
