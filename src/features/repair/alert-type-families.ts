import type { AlertType } from '../incidents/alert-type-table.js';

/**
 * Families of the built-in alert types (alert-type-table.ts): types in one family describe
 * the same kind of failure, so a playbook written for one member is a plausible, weaker match
 * for another (playbooks.ts scores it FAMILY_SCORE, below an exact or signature match).
 *
 * Types without a family here (heartbeat, monitoring_pipeline, custom and rule-defined types,
 * `errtracker_<level>`) only ever match exactly: a repair for the alerting pipeline itself or
 * for an unknown kind of alert is not something to guess at.
 */
export const ALERT_TYPE_FAMILIES: Readonly<Record<string, readonly AlertType[]>> = {
  workload_health: ['crash_loop', 'pod_not_ready', 'service_down', 'target_down'],
  memory: ['oom_killed', 'high_memory'],
  compute: ['high_cpu', 'cpu_throttling', 'capacity'],
  rollout: ['rollout_stuck', 'image_pull_failure', 'replica_mismatch'],
  jobs: ['job_failed'],
  storage: ['disk_pressure', 'volume_errors'],
  node: ['node_not_ready', 'clock_skew', 'network_errors'],
  traffic: ['latency', 'error_rate'],
  certificates: ['certificate_expiry'],
};

const FAMILY_OF: ReadonlyMap<string, string> = new Map<string, string>(
  Object.entries(ALERT_TYPE_FAMILIES).flatMap(([family, types]) =>
    types.map((type) => [type, family] as const),
  ),
);

/** The family of an alert type, or null when it has none. */
export function alertTypeFamily(alertType: string): string | null {
  return FAMILY_OF.get(alertType) ?? null;
}
