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

/**
 * The columns a list reads. Metadata (stack traces, analysis), blast radius, dry-run checks
 * and the description can be large; they stay with the detail route.
 */
export const APPROVAL_SUMMARY_COLUMNS = [
  'id',
  'incident_id',
  'status',
  'risk_level',
  'action',
  'requested_by',
  'created_at',
  'updated_at',
] as const;

type ApprovalSummaryRow = Pick<
  Selectable<Tables['approvals']>,
  (typeof APPROVAL_SUMMARY_COLUMNS)[number]
>;

export interface ApprovalSummary {
  id: string;
  incident_id: string | null;
  status: ApprovalStatus;
  risk_level: RiskLevel;
  action: string;
  requested_by: string;
  /** distinct people who approved so far */
  signers: number;
  created_at: string;
  updated_at: string;
}

/** Approvals as a list shows them, each with how many of its signatures it has. */
export async function approvalSummaries(
  db: Db,
  rows: ApprovalSummaryRow[],
): Promise<ApprovalSummary[]> {
  const signed = new Map<string, number>();
  if (rows.length > 0) {
    // signApproval records one `approve` per distinct signer, so rows count signers.
    const counts = await db
      .selectFrom('approval_decisions')
      .select((eb) => ['approval_id', eb.fn.countAll().as('signers')])
      .where('decision', '=', 'approve')
      .where(
        'approval_id',
        'in',
        rows.map((row) => row.id),
      )
      .groupBy('approval_id')
      .execute();
    for (const row of counts) signed.set(row.approval_id, Number(row.signers));
  }
  return rows.map((row) => ({
    id: row.id,
    incident_id: row.incident_id,
    status: row.status as ApprovalStatus,
    risk_level: row.risk_level as RiskLevel,
    action: row.action,
    requested_by: row.requested_by,
    signers: signed.get(row.id) ?? 0,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }));
}

export async function findApproval(db: Db, id: string): Promise<Approval | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? approvalFromRow(row) : undefined;
}
