import { ownValue, setOwn } from '../../support/own-value.js';
import { workloadOf } from './fingerprint.js';

/**
 * One alert as the intake handles it, whichever body it came in. CONTRACT, Alert webhook:
 * "Accepted bodies: a flat alert, or a Prometheus Alertmanager webhook (version 4,
 * `alerts[]`; each firing alert is handled as one flat alert, `resolved` ones are recorded
 * and create nothing)".
 */
export interface FlatAlert {
  alert_name: string;
  alert_type?: string;
  severity: string;
  source: string;
  target_resource: string;
  namespace: string;
  workload: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  rule_id?: string;
  rule_type?: string;
  status: 'firing' | 'resolved';
  starts_at?: string;
  /** Alertmanager's and Grafana's `generatorURL`: the rule or graph that fired the alert. */
  generator_url?: string;
}

/** A longer `generatorURL` is dropped: no rule link is that long, and it is kept per alert. */
export const GENERATOR_URL_MAX_LENGTH = 2048;

export interface AlertmanagerBody {
  alerts: unknown[];
  [key: string]: unknown;
}

// CONTRACT, Alert webhook: "`namespace` (default `default`)".
const DEFAULT_NAMESPACE = 'default';
const ALERTMANAGER_SOURCE = 'alertmanager';
// No severity given: warning, i.e. P2, the same incident severity as unknown values get.
const DEFAULT_SEVERITY = 'warning';

/** Label names that name the affected object, most specific first. */
export const TARGET_LABELS = [
  'pod',
  'deployment',
  'statefulset',
  'daemonset',
  'job_name',
  'container',
  'node',
  'instance',
  'service',
  'job',
] as const;

/** CONTRACT, Alert webhook: flat `severity` is "`critical`, `warning`, `info` or `P0`-`P3`". */
export const FLAT_ALERT_SEVERITIES = [
  'critical',
  'warning',
  'info',
  'P0',
  'P1',
  'P2',
  'P3',
] as const;

export type IncidentSeverity = 'P0' | 'P1' | 'P2' | 'P3';

/**
 * CONTRACT, Alert webhook: "Incident severity: `P0`-`P3` as given; `critical` is P1,
 * `warning` P2, `info` P3". Case and surrounding space are ignored. A few values common in
 * Alertmanager setups are mapped too; P0 is only ever given explicitly, never inferred.
 */
const SEVERITY_TO_INCIDENT: Readonly<Record<string, IncidentSeverity>> = {
  p0: 'P0',
  p1: 'P1',
  p2: 'P2',
  p3: 'P3',
  critical: 'P1',
  warning: 'P2',
  info: 'P3',
  // common extras: a page is critical by convention; `none` is used for informational rules
  page: 'P1',
  error: 'P2',
  warn: 'P2',
  none: 'P3',
};

/**
 * Unknown or missing severities are P2: not P1, since P0/P1 block automatic repair (spec,
 * Automatic repair) and a typo should not do that; not P3, so that nothing unknown is hidden.
 */
export function incidentSeverity(severity: string | undefined): IncidentSeverity {
  return ownValue(SEVERITY_TO_INCIDENT, (severity ?? '').trim().toLowerCase()) ?? 'P2';
}

/** Whether a flat alert's severity is one the contract lists, ignoring case (`Critical`, `p1`). */
export function isFlatAlertSeverity(severity: string): boolean {
  const wanted = severity.trim().toLowerCase();
  return FLAT_ALERT_SEVERITIES.some((accepted) => accepted.toLowerCase() === wanted);
}

/** An object with an `alerts` array; Alertmanager also sends `version: "4"`, not required. */
export function isAlertmanagerBody(body: unknown): body is AlertmanagerBody {
  return isRecord(body) && Array.isArray(body.alerts);
}

/**
 * Flattens an Alertmanager webhook. Never throws: entries that are not objects are skipped
 * and counted, label and annotation values that are not strings are turned into strings.
 * Resolved alerts are returned too (with `status: 'resolved'`) so they can be recorded.
 */
export function fromAlertmanager(body: unknown): { alerts: FlatAlert[]; skipped: number } {
  if (!isAlertmanagerBody(body)) return { alerts: [], skipped: 0 };
  const commonLabels = stringRecord(body.commonLabels);
  const commonAnnotations = stringRecord(body.commonAnnotations);
  const groupStatus = statusOf(body.status);
  const alerts: FlatAlert[] = [];
  let skipped = 0;
  for (const entry of body.alerts) {
    if (!isRecord(entry)) {
      skipped += 1;
      continue;
    }
    // The alert's own labels win over the group's common ones.
    const labels = stringRecord(entry.labels, commonLabels);
    const annotations = stringRecord(entry.annotations, commonAnnotations);
    const targetResource = firstPresent(labels, TARGET_LABELS) ?? '';
    alerts.push(
      withOptionals(
        {
          alert_name: labels.alertname?.trim() ?? '',
          severity: textOr(labels.severity, DEFAULT_SEVERITY),
          source: ALERTMANAGER_SOURCE,
          target_resource: targetResource,
          namespace: textOr(labels.namespace, DEFAULT_NAMESPACE),
          workload: workloadOf(targetResource),
          message: firstPresent(annotations, ['summary', 'description', 'message']) ?? '',
          labels,
          annotations,
          status: statusOf(entry.status) ?? groupStatus ?? 'firing',
        },
        // A Prometheus rule can only carry these as labels.
        { alert_type: labels.alert_type, rule_id: labels.rule_id, rule_type: labels.rule_type },
        typeof entry.startsAt === 'string' ? entry.startsAt : undefined,
        generatorUrlOf(entry.generatorURL),
      ),
    );
  }
  return { alerts, skipped };
}

/** Completes `alert` in place with the optionals given, and returns it. */
function withOptionals(
  alert: Omit<FlatAlert, 'alert_type' | 'rule_id' | 'rule_type' | 'starts_at' | 'generator_url'>,
  optionals: Pick<FlatAlert, 'alert_type' | 'rule_id' | 'rule_type'>,
  startsAt: string | undefined,
  generatorUrl: string | undefined,
): FlatAlert {
  // Absent optionals are left out rather than set to undefined, so records stay clean. Not
  // a copy: V8 (Node 20) gives keys added to a spread copy a slow path (about 1 µs an alert).
  const result: FlatAlert = alert;
  for (const key of ['alert_type', 'rule_id', 'rule_type'] as const) {
    const value = optionals[key]?.trim();
    if (value) result[key] = value;
  }
  if (startsAt?.trim()) result.starts_at = startsAt.trim();
  if (generatorUrl !== undefined) result.generator_url = generatorUrl;
  return result;
}

/** A `generatorURL` kept as sent when it is a non-empty string of bounded length. */
function generatorUrlOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const url = value.trim();
  return url !== '' && url.length <= GENERATOR_URL_MAX_LENGTH ? url : undefined;
}

function statusOf(value: unknown): FlatAlert['status'] | undefined {
  if (typeof value !== 'string') return undefined;
  const status = value.trim().toLowerCase();
  return status === 'firing' || status === 'resolved' ? status : undefined;
}

function firstPresent(record: Record<string, string>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = record[key]?.trim();
    if (value) return value;
  }
  return undefined;
}

function textOr(value: string | undefined, fallback: string): string {
  const trimmed = value?.trim();
  return trimmed ? trimmed : fallback;
}

/**
 * `value`'s entries over a copy of `base` if given: string values kept, other scalars and
 * objects stringified, null and undefined dropped. Not `{ ...base, ...own }`: V8 (Node 20)
 * builds that on a slow path when `own` adds keys, 2.4 µs an Alertmanager alert.
 */
function stringRecord(value: unknown, base?: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  if (base) for (const key of Object.keys(base)) setOwn(result, key, base[key]!);
  if (!isRecord(value)) return result;
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    setOwn(result, key, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
