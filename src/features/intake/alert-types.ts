import { ownValue } from '../../support/own-value.js';
import {
  ALERT_NAME_TABLE,
  ALERT_TYPES,
  type AlertType,
  CUSTOM_ALERT_TYPE,
} from '../incidents/alert-type-table.js';
import type { AlertTypeRule } from './alert-type-rules.js';

export { ALERT_TYPES, type AlertType, CUSTOM_ALERT_TYPE };

/** The parts of an alert that decide its type. */
export interface AlertTypeSubject {
  alert_name?: string;
  alert_type?: string;
  rule_type?: string;
  rule_id?: string;
  labels?: Record<string, string>;
}

/**
 * `source` says why the alert got its type, so the API can explain why alerts merged:
 * `payload`, `rule_type`, `rule:<rule id>`, `table:<table entry>` or `fallback`.
 */
export interface AlertTypeResolution {
  alertType: string;
  source: string;
}

/**
 * Spec, Alert payload: "The alert type is derived from the alert name: first from the match
 * rules (rule type or rule id), then from a static name-to-type table, then the value
 * `custom`". An explicit `alert_type` (CONTRACT, Alert webhook: `alert_name` is "required
 * unless `alert_type` is given") is the sender's own decision and comes before all of that.
 * Explicit values are used as sent (only trimmed): the sender owns its vocabulary.
 */
export function resolveAlertType(
  alert: AlertTypeSubject,
  rules: readonly AlertTypeRule[],
): AlertTypeResolution {
  const explicit = present(alert.alert_type);
  if (explicit !== undefined) return { alertType: explicit, source: 'payload' };

  const ruleType = present(alert.rule_type);
  if (ruleType !== undefined) return { alertType: ruleType, source: 'rule_type' };

  const rule = rules.find((candidate) => ruleMatches(candidate, alert));
  if (rule !== undefined) return { alertType: rule.type, source: `rule:${rule.id}` };

  const entry = lookupAlertName(alert.alert_name);
  if (entry !== undefined) return { alertType: entry.alertType, source: `table:${entry.name}` };

  return { alertType: CUSTOM_ALERT_TYPE, source: 'fallback' };
}

/** Every condition the rule states must hold; a condition it leaves out is not checked. */
export function ruleMatches(rule: AlertTypeRule, alert: AlertTypeSubject): boolean {
  const { alertName, labels, ruleId } = rule.match;
  if (alertName !== undefined) {
    if (alert.alert_name === undefined || !alertName.test(alert.alert_name)) return false;
  }
  if (ruleId !== undefined && alert.rule_id?.trim() !== ruleId.trim()) return false;
  return labels.every(({ name, value }) => {
    const actual = alert.labels?.[name];
    if (actual === undefined) return false;
    return typeof value === 'string' ? actual === value : value.test(actual);
  });
}

/**
 * Lower-cases and drops everything but letters and digits, so `KubePodCrashLooping`,
 * `kube-pod-crash-looping` and `KUBE_POD_CRASH_LOOPING` compare equal.
 */
export function normalizeAlertName(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

const TABLE_INDEX = buildTableIndex();

/**
 * Looks an alert name up in the static table. Besides the exact entry, the kubernetes-mixin
 * names also answer without their `Kube` prefix (`pod-crash-looping`), because senders often
 * drop it; an alias never shadows a real entry.
 */
export function lookupAlertName(
  alertName: string | undefined,
): { name: string; alertType: AlertType } | undefined {
  if (alertName === undefined) return undefined;
  const name = TABLE_INDEX.get(normalizeAlertName(alertName));
  const alertType = name === undefined ? undefined : ownValue(ALERT_NAME_TABLE, name);
  return name === undefined || alertType === undefined ? undefined : { name, alertType };
}

function buildTableIndex(): Map<string, string> {
  const index = new Map<string, string>();
  const names = Object.keys(ALERT_NAME_TABLE);
  for (const name of names) index.set(normalizeAlertName(name), name);
  for (const name of names) {
    // `Kube` followed by a capital: KubePodNotReady yes, KubeletTooManyPods no.
    if (!/^Kube[A-Z]/.test(name)) continue;
    const alias = normalizeAlertName(name.slice('Kube'.length));
    if (!index.has(alias)) index.set(alias, name);
  }
  return index;
}

function present(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
