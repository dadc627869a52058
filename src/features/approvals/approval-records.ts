import crypto from 'node:crypto';
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

export async function insertApproval(tx: Db | Tx, input: NewApproval, now: number): Promise<string> {
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
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export function approvalFromRow(row: Omit<Tables['approvals'], 'seq'>): Approval {
  return {
    id: row.id,
    incident_id: row.incident_id,
    status: row.status as ApprovalStatus,
    risk_level: row.risk_level as RiskLevel,
    action: row.action,
    description: row.description,
    requested_by: row.requested_by,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export async function findApproval(db: Db, id: string): Promise<Approval | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? approvalFromRow(row) : undefined;
}
