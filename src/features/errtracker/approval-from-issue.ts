import { randomBytes } from 'node:crypto';
import type { ErrorAnalysis, ErrorContext, StackFrame } from '../../ports/analyzer.js';
import type { RiskLevel } from '../approvals/approval-domain.js';
import type { AnomalyFrequency, EscalationLevel } from './anomaly-frequency.js';
import { targetResourceOf } from './error-context.js';

/** spec, Approval request created from an error-tracker issue: `requested_by`. */
export const TRACKER_REQUESTER = 'errtracker-webhook';

/** Marks the description when the analyzer gave nothing (spec: "or a pending marker"). */
export const ANALYSIS_PENDING = 'Analysis pending';

export interface BlastRadius {
  affected_pods: number;
  estimated_downtime: string;
  related_services: string[];
  data_impact: 'READ_ONLY';
}

export interface IssueApprovalMetadata {
  source: 'errtracker';
  alert_type: string;
  issue_id: string;
  project: string;
  culprit: string;
  error_count: number;
  first_seen: string | null;
  stacktrace: StackFrame[];
  llm_provider: string;
  llm_confidence: number;
  anomaly_frequency?: AnomalyFrequency;
  /** The diagnosed failure signature, for repair playbooks that match signatures. */
  error_signature?: string;
}

/** spec, "Approval request created from an error-tracker issue", field for field. */
export interface IssueApprovalRequest {
  action: string;
  description: string;
  risk_level: RiskLevel;
  blast_radius: BlastRadius;
  dry_run_checks: string[];
  requested_by: string;
  metadata: IssueApprovalMetadata;
}

/**
 * spec: "fatal to CRITICAL, error to HIGH, warning to MEDIUM, info to LOW". Sentry's other
 * levels: `debug` sits below info (low); `critical` and `warn` are logging-library spellings
 * of fatal and warning. An unknown level maps like `error`, the level assumed when none is
 * sent, so an unreadable level gets more review, not less.
 */
export function riskForTrackerLevel(level: string): RiskLevel {
  switch (level.trim().toLowerCase()) {
    case 'fatal':
    case 'critical':
      return 'critical';
    case 'warning':
    case 'warn':
      return 'medium';
    case 'info':
    case 'debug':
      return 'low';
    default:
      return 'high';
  }
}

/**
 * spec: "A frequency escalation of PERMANENT_FIX raises risk to CRITICAL. An escalation of
 * ESCALATE raises it to HIGH unless it is already CRITICAL." Neither ever lowers a risk;
 * REPEAT leaves it as it is.
 */
export function applyEscalation(risk: RiskLevel, escalation: EscalationLevel | null): RiskLevel {
  if (escalation === 'PERMANENT_FIX') return 'critical';
  if (escalation === 'ESCALATE') return risk === 'critical' ? 'critical' : 'high';
  return risk;
}

/**
 * The approval request for an analyzed (or unanalyzed) tracker issue. `tracker` fills the
 * spec's `<tracker>` in the action; it defaults to the tracker's name as the spec spells it
 * everywhere else (`errtracker`), e.g. `errtracker ERROR Alert: app.views in index`.
 */
export function approvalRequestFromIssue(
  ctx: ErrorContext,
  analysis: ErrorAnalysis | null,
  frequency: AnomalyFrequency | null,
  tracker = 'errtracker',
): IssueApprovalRequest {
  const metadata: IssueApprovalMetadata = {
    source: 'errtracker',
    alert_type: `errtracker_${ctx.level}`,
    issue_id: ctx.issue_id,
    project: ctx.project,
    culprit: ctx.culprit,
    error_count: ctx.count,
    first_seen: ctx.first_seen,
    stacktrace: ctx.stacktrace,
    llm_provider: analysis?.analyzed_by ?? 'pending',
    llm_confidence: analysis?.confidence ?? 0.0,
  };
  if (frequency !== null) metadata.anomaly_frequency = frequency;
  if (analysis?.error_signature) metadata.error_signature = analysis.error_signature;
  return {
    action: `${tracker} ${ctx.level.toUpperCase()} Alert: ${targetResourceOf(ctx)}`,
    description: describeIssue(ctx, analysis),
    risk_level: applyEscalation(
      riskForTrackerLevel(ctx.level),
      frequency?.escalation_level ?? null,
    ),
    blast_radius: {
      affected_pods: 1,
      estimated_downtime: '0',
      related_services: [ctx.project],
      data_impact: 'READ_ONLY',
    },
    dry_run_checks: [],
    requested_by: TRACKER_REQUESTER,
    metadata,
  };
}

/** spec: "title, then root cause and suggestion (or a pending marker when no analysis)". */
function describeIssue(ctx: ErrorContext, analysis: ErrorAnalysis | null): string {
  if (analysis === null) return `${ctx.title}\n\n${ANALYSIS_PENDING}`;
  return [
    ctx.title,
    '',
    `Root cause: ${analysis.root_cause}`,
    `Suggestion: ${analysis.fix_suggestion}`,
  ].join('\n');
}

/** spec: "If creating the approval fails, the identifier returned is `temp-` plus 8 hex characters." */
export function tempApprovalId(): string {
  return `temp-${randomBytes(4).toString('hex')}`;
}
