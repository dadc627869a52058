import type { Selectable } from 'kysely';
import type { Tables } from '../../ports/store.js';
import { DEBOUNCE_WINDOW_MS } from './converge.js';

type IncidentRow = Selectable<Tables['incidents']>;

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

/**
 * The columns a list reads. The message, labels and annotations come from the alert as sent
 * and can be large; they and the grouping explanation are on the detail route.
 */
export const INCIDENT_SUMMARY_COLUMNS = [
  'id',
  'status',
  'severity',
  'alert_name',
  'alert_type',
  'source',
  'target_resource',
  'namespace',
  'workload',
  'fingerprint',
  'hit_count',
  'first_seen',
  'last_seen',
  'approval_id',
] as const;

/** An incident as a list shows it. */
export function incidentSummary(row: Pick<IncidentRow, (typeof INCIDENT_SUMMARY_COLUMNS)[number]>) {
  return {
    id: row.id,
    status: row.status,
    severity: row.severity,
    alert_name: row.alert_name,
    alert_type: row.alert_type,
    source: row.source,
    target_resource: row.target_resource,
    namespace: row.namespace,
    workload: row.workload,
    fingerprint: row.fingerprint,
    hit_count: row.hit_count,
    first_seen: new Date(row.first_seen).toISOString(),
    last_seen: new Date(row.last_seen).toISOString(),
    approval_id: row.approval_id,
  };
}
