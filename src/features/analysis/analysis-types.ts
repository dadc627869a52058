import type { RiskLevel } from '../approvals/approval-domain.js';
import type { EscalationLevel } from '../errtracker/anomaly-frequency.js';

export type { RiskLevel };

/** CONTRACT, Analysis tasks: "`state` values: PENDING, RUNNING, COMPLETED, FAILED". */
export const TASK_STATES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export function isFinished(state: string): boolean {
  return state === 'COMPLETED' || state === 'FAILED';
}

/** CONTRACT, Analysis tasks: the experts, in the order used for every tie-break. */
export const AGENTS = ['stability', 'security', 'cost', 'performance'] as const;
export type AgentName = (typeof AGENTS)[number];

/** spec, Analysis request: "severity: one of P0, P1, P2, P3". */
export const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * The closed set of actions experts choose from. Consensus counts agreement by equal actions,
 * so free text would make every expert disagree; the explanation goes in `reasoning`.
 */
export const ACTIONS = [
  'restart_workload',
  'rollback_deployment',
  'scale_out',
  'scale_in',
  'increase_resources',
  'renew_certificate',
  'rotate_credentials',
  'escalate_permanent_fix',
  'investigate',
  'monitor',
] as const;
export type ActionName = (typeof ACTIONS)[number];

/** One expert's view (spec, Task result; docs/api.md, Analysis tasks: action, kubectl where one fits, risk, reasoning, confidence, tokens, cost). */
export interface Opinion {
  agent: AgentName;
  recommended_action: ActionName;
  recommended_kubectl: string | null;
  risk_level: RiskLevel;
  reasoning: string;
  /** 0 to 1 */
  confidence: number;
  /** The expert's vote in the consensus; 1 when absent. */
  weight?: number;
  /** Model tokens used; 0 for the rule-based experts. */
  tokens: number;
  /** Estimated USD; 0 for the rule-based experts and for models without a known price. */
  cost: number;
}

/** Past repairs from the operation log (EXECUTION_COMPLETED entries of related incidents). */
export interface RepairHistory {
  attempts: number;
  succeeded: number;
  failed: number;
  playbooks: string[];
}

export interface FrequencySummary {
  count_1h: number;
  count_24h: number;
  count_7d: number;
  count_30d: number;
  auto_repair_count: number;
  escalation_level: EscalationLevel | null;
}

/** Everything the experts see about one incident (or one manually described problem). */
export interface AnalysisSubject {
  incident_id: string | null;
  severity: Severity;
  namespace: string;
  /** The first one is the primary target of a kubectl suggestion. */
  affected_services: string[];
  alert_names: string[];
  /** Resolved from the alert names (or the incident's own type). */
  alert_types: string[];
  hit_count: number;
  message: string | null;
  labels: Record<string, string>;
  frequency: FrequencySummary;
  repairs: RepairHistory;
  /** spec, Analysis request: "free-form extra context" (metrics and anything else). */
  context: Record<string, unknown>;
}

/** The task result's consensus fields (spec, Task result). */
export interface Consensus {
  consensus_id: string;
  recommended_action: ActionName;
  recommended_kubectl: string | null;
  risk_level: RiskLevel;
  final_reasoning: string;
  consensus_score: number;
  opinions: Opinion[];
  dissenting_opinions: string[];
}

/** One expert: any implementation (rules, a model, a test's own) that gives an opinion. */
export interface Expert {
  readonly agent: AgentName;
  analyze(subject: AnalysisSubject, signal: AbortSignal): Promise<Opinion>;
}
