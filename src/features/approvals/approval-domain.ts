/** The approval's domain words, apart from its records: statuses, risk, and risk by severity. */

/** CONTRACT, Approvals: the status values. */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'executing',
  'executed',
  'failed',
  'expired',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

/** Incident severity to approval risk: the more urgent the incident, the riskier the action. */
export function riskForSeverity(severity: string): RiskLevel {
  switch (severity) {
    case 'P0':
      return 'critical';
    case 'P1':
      return 'high';
    case 'P3':
      return 'low';
    default:
      return 'medium';
  }
}
