/** The shapes converge.ts takes and answers, apart so that its steps can share them. */

export interface TypedAlert {
  alertId: string;
  alertName: string;
  alertType: string;
  /** Why this alert type: `payload`, `rule_type`, `rule:<id>`, `table:<name>` or `default`. */
  alertTypeSource: string;
  fingerprint: string;
  namespace: string;
  workload: string;
  /** P0-P3 */
  severity: string;
  source: string;
  targetResource: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `webhook`, `alertmanager` or `signal` */
  origin: string;
  payload: unknown;
}

export interface ConvergeResult {
  status: 'created' | 'converged';
  alert_id: string;
  fingerprint: string;
  incident_id: string;
  approval_id: string | null;
  hit_count: number;
  analysis_scheduled: boolean;
  /** This alert reopened a resolved incident (not part of the webhook's answer). */
  reopened?: boolean;
  /** The new incident's follow-up job, to relay once committed (not part of the answer). */
  follow_up_job?: string;
}

export interface ConvergeOptions {
  now: number;
  requestedBy: string;
  /** A signal stream entry handled exactly once: a re-delivery returns the first result. */
  signalEntryId?: string;
}

export interface Arrival {
  alert: TypedAlert;
  options: ConvergeOptions;
}
