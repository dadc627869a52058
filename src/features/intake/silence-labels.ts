import type { TypedAlert } from './converge-types.js';
import type { FlatAlert } from './normalize-alert.js';

/**
 * CONTRACT, Silences: "For a flat alert the labels are its `labels` plus `alertname`
 * (`alert_name`), `severity` (as sent), `namespace`, `alert_type` and `workload`". The
 * alert's own fields win over labels of the same name; an Alertmanager alert's fields came
 * from those labels anyway.
 */
export function silenceLabels(alert: FlatAlert, typed: TypedAlert): Record<string, string> {
  return {
    ...alert.labels,
    alertname: typed.alertName,
    severity: alert.severity,
    namespace: typed.namespace,
    alert_type: typed.alertType,
    workload: typed.workload,
  };
}
