/**
 * Silences as the console writes and proposes them; free of the DOM so that Node can test them.
 */
import type { IncidentDetail, SilenceMatcher } from './api-types.js';
import { outside, type TextPiece } from './outside-text.js';

/** The durations offered when creating a silence. */
export const SILENCE_DURATIONS = [
  { label: '30 minutes', seconds: 30 * 60 },
  { label: '1 hour', seconds: 3600 },
  { label: '2 hours', seconds: 2 * 3600 },
  { label: '4 hours', seconds: 4 * 3600 },
  { label: '8 hours', seconds: 8 * 3600 },
  { label: '1 day', seconds: 86_400 },
  { label: '3 days', seconds: 3 * 86_400 },
  { label: '7 days', seconds: 7 * 86_400 },
] as const;

type IncidentLabels = Pick<
  IncidentDetail,
  'labels' | 'alert_name' | 'namespace' | 'alert_type' | 'workload'
>;

/**
 * Matchers for alerts like this incident's: its labels, with the fields a silence sees on every
 * alert (CONTRACT, Silences: `alertname`, `namespace`, `alert_type`, `workload`) taken from the
 * incident, since they win over labels of the same name there too. The incident's `severity` is
 * left out: a silence sees severity as sent, which the incident may have normalized. Labels
 * with no value are left out too: they would only match where the label is missing.
 */
export function matchersFromIncident(incident: IncidentLabels): SilenceMatcher[] {
  const fields: Record<string, string> = {
    alertname: incident.alert_name,
    namespace: incident.namespace,
    alert_type: incident.alert_type,
    workload: incident.workload,
  };
  const labels = Object.entries(incident.labels)
    .filter(([name, value]) => !Object.hasOwn(fields, name) && isLabelValue(value))
    .map(([name, value]) => [name, String(value)] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  return [...Object.entries(fields), ...labels]
    .filter(([, value]) => value !== '')
    .map(([name, value]) => ({ name, value, isRegex: false, isEqual: true }));
}

function isLabelValue(value: unknown): value is string | number | boolean {
  return ['string', 'number', 'boolean'].includes(typeof value);
}

/** Alertmanager's operators: `=`, `!=`, `=~`, `!~`. */
export function matcherOperator(matcher: Pick<SilenceMatcher, 'isRegex' | 'isEqual'>): string {
  if (matcher.isRegex) return matcher.isEqual ? '=~' : '!~';
  return matcher.isEqual ? '=' : '!=';
}

/** A matcher as amtool writes it, `alertname="X"`; the name and value are outside text. */
export function matcherText(matcher: SilenceMatcher): TextPiece[] {
  return [outside(matcher.name), `${matcherOperator(matcher)}"`, outside(matcher.value), '"'];
}

/** The body of `POST …/api/v2/silences`: from now for `seconds`. */
export function postableSilence(options: {
  matchers: SilenceMatcher[];
  seconds: number;
  createdBy: string;
  comment: string;
  now: number;
}) {
  return {
    matchers: options.matchers,
    startsAt: new Date(options.now).toISOString(),
    endsAt: new Date(options.now + options.seconds * 1000).toISOString(),
    createdBy: options.createdBy,
    comment: options.comment,
  };
}
