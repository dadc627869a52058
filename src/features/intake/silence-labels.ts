import type { TypedAlert } from './converge-types.js';
import type { FlatAlert } from './normalize-alert.js';

/**
 * CONTRACT, Silences: "For a flat alert the labels are its `labels` plus `alertname`
 * (`alert_name`), `severity` (as sent), `namespace`, `alert_type` and `workload`". The
 * alert's own fields win over labels of the same name; an Alertmanager alert's fields came
 * from those labels anyway.
 */
export function silenceLabels(alert: FlatAlert, typed: TypedAlert): Record<string, string> {
  // The fields' keys come first and are set again after the labels: V8 (Node 20) builds
  // `{ ...labels, alertname, … }` on a slow path, 5 µs an alert with two labels against 0.1.
  const labels: Record<string, string> = {
    alertname: typed.alertName,
    severity: alert.severity,
    namespace: typed.namespace,
    alert_type: typed.alertType,
    workload: typed.workload,
    ...alert.labels,
  };
  labels.alertname = typed.alertName;
  labels.severity = alert.severity;
  labels.namespace = typed.namespace;
  labels.alert_type = typed.alertType;
  labels.workload = typed.workload;
  return labels;
}
