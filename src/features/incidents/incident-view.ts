import { incidentSummary } from './incident-query.js';
import type { IncidentRow } from './incident-records.js';
/** spec, What the service does (2): a record that is pending, or younger than 5 minutes. */
export const DEBOUNCE_WINDOW_MS = 5 * 60 * 1000;

/**
 * An incident as the read API shows it, with `grouping` saying why alerts merged into it:
 * the fingerprint inputs, where the alert type came from, and the merge rule.
 */
export function incidentView(row: IncidentRow) {
  return {
    ...incidentSummary(row),
    message: row.message,
    labels: JSON.parse(row.labels) as Record<string, string>,
    annotations: JSON.parse(row.annotations) as Record<string, string>,
    grouping: {
      fingerprint: row.fingerprint,
      inputs: { namespace: row.namespace, workload: row.workload, alert_type: row.alert_type },
      alert_type_source: row.alert_type_source,
      fingerprint_rule: 'first 32 hex characters of sha256("<namespace>:<workload>:<alert_type>")',
      debounce_window_seconds: DEBOUNCE_WINDOW_MS / 1000,
      merge_rule:
        'an alert with the same fingerprint joins this incident while its approval is pending or it was first seen less than 5 minutes earlier',
    },
  };
}
