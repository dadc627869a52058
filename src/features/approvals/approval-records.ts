import crypto from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';

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

export interface NewApproval {
  incidentId: string | null;
  riskLevel: RiskLevel;
  action: string;
  description: string;
  requestedBy: string;
  metadata: Record<string, unknown>;
  blastRadius?: Record<string, unknown>;
  dryRunChecks?: string[];
}

export interface Approval {
  id: string;
  incident_id: string | null;
  status: ApprovalStatus;
  risk_level: RiskLevel;
  action: string;
  description: string;
  requested_by: string;
  metadata: Record<string, unknown>;
  blast_radius: Record<string, unknown>;
  dry_run_checks: string[];
  created_at: string;
  updated_at: string;
}

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

export async function insertApproval(
  tx: Db | Tx,
  input: NewApproval,
  now: number,
): Promise<string> {
  // A UUID keeps `approve:<id>:<nonce>` inside the chat API's 64-byte callback_data limit.
  const id = crypto.randomUUID();
  await tx
    .insertInto('approvals')
    .values({
      id,
      incident_id: input.incidentId,
      status: 'pending',
      risk_level: input.riskLevel,
      action: input.action,
      description: input.description,
      requested_by: input.requestedBy,
      metadata: JSON.stringify(input.metadata),
      blast_radius: JSON.stringify(input.blastRadius ?? {}),
      dry_run_checks: JSON.stringify(input.dryRunChecks ?? []),
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export function approvalFromRow(row: Selectable<Tables['approvals']>): Approval {
  return {
    id: row.id,
    incident_id: row.incident_id,
    status: row.status as ApprovalStatus,
    risk_level: row.risk_level as RiskLevel,
    action: row.action,
    description: row.description,
    requested_by: row.requested_by,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    blast_radius: JSON.parse(row.blast_radius) as Record<string, unknown>,
    dry_run_checks: JSON.parse(row.dry_run_checks) as string[],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function findApproval(db: Db, id: string): Promise<Approval | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? approvalFromRow(row) : undefined;
}
