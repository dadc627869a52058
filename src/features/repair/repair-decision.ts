import type { RiskLevel } from '../approvals/approval-domain.js';

export type IncidentSeverity = 'P0' | 'P1' | 'P2' | 'P3';

/**
 * Why an automatic repair did not run, as a closed set:
 * - `incident_severity_P0`, `incident_severity_P1`: spec, Automatic repair, "The only blocker
 *   that policy retains is an incident severity of P0 or P1".
 * - `no_playbook`: nothing in the catalog matches, so there is nothing to run; not a policy.
 * - `critical_break_glass`: spec, Readbacks: POST, "Critical-risk break-glass stays blocked". Not a policy
 *   blocker either but a safety rule of the executor: a critical playbook, or one answering a
 *   critical approval, is break-glass and runs only after people sign it (two signers,
 *   CONTRACT, Approvals). Policy cannot switch it off.
 *
 * When several hold, the first in this order is reported, so the severity policy is named
 * even when no playbook would have run anyway.
 */
export const REPAIR_BLOCKERS = [
  'incident_severity_P0',
  'incident_severity_P1',
  'no_playbook',
  'critical_break_glass',
] as const;
export type RepairBlocker = (typeof REPAIR_BLOCKERS)[number];

/** spec, Automatic repair, "Decision": exactly these fields. */
export interface RepairDecision {
  can_auto_repair: boolean;
  reason: string;
  blocked_by: RepairBlocker | null;
  playbook: { id: string; name: string } | null;
  /** 0 without a playbook; see playbooks.ts for the scores. */
  similarity_score: number;
  /** The higher of the approval's and the playbook's risk. */
  risk_level: RiskLevel;
  /** True when the matched playbook has never completed a real (non-dry-run) run. */
  is_cold_start: boolean;
}

export interface RepairDecisionInput {
  /** The incident's severity; null for approvals without an incident (error tracker). */
  severity: IncidentSeverity | null;
  /** The approval's risk level. */
  risk_level: RiskLevel;
  match: {
    playbook: { id: string; name: string; risk_level: RiskLevel };
    similarity_score: number;
  } | null;
  /** Successful real runs of the matched playbook so far. */
  successfulRuns: number;
}

const RISK_ORDER: readonly RiskLevel[] = ['low', 'medium', 'high', 'critical'];

export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return RISK_ORDER.indexOf(a) >= RISK_ORDER.indexOf(b) ? a : b;
}

/**
 * Whether an approval may be repaired without a person. Cold start is reported, not
 * blocking: the spec lets only severity block, and a first run is how a playbook earns its
 * history.
 */
export function decideRepair(input: RepairDecisionInput): RepairDecision {
  const { match } = input;
  const riskLevel = match
    ? higherRisk(input.risk_level, match.playbook.risk_level)
    : input.risk_level;
  const base = {
    playbook: match ? { id: match.playbook.id, name: match.playbook.name } : null,
    similarity_score: match?.similarity_score ?? 0,
    risk_level: riskLevel,
    is_cold_start: match !== null && input.successfulRuns === 0,
  };
  const blocked = (blocker: RepairBlocker, reason: string): RepairDecision => ({
    can_auto_repair: false,
    reason,
    blocked_by: blocker,
    ...base,
  });

  if (input.severity === 'P0' || input.severity === 'P1') {
    return blocked(
      `incident_severity_${input.severity}`,
      `Incident severity ${input.severity} blocks automatic repair; a person must approve`,
    );
  }
  if (match === null) return blocked('no_playbook', 'No playbook matches this approval');
  if (riskLevel === 'critical') {
    const whose = match.playbook.risk_level === 'critical' ? 'Playbook' : 'Approval';
    return blocked(
      'critical_break_glass',
      `${whose} risk is critical: break-glass repairs run only after people approve them`,
    );
  }
  const history = base.is_cold_start
    ? 'first run of this playbook (cold start)'
    : `${input.successfulRuns} successful run${input.successfulRuns === 1 ? '' : 's'} before`;
  return {
    can_auto_repair: true,
    reason: `Playbook ${match.playbook.id} matches (similarity ${match.similarity_score.toFixed(2)}, risk ${riskLevel}); ${history}`,
    blocked_by: null,
    ...base,
  };
}
