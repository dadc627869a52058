import type { Expression, Selectable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { batchedLookup } from '../../support/batched-lookup.js';
import { insertBuiltOnce } from '../../support/built-once.js';
import { listNewestFirst, type Page } from '../../support/newest-first.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import { signersOf } from './approval-decision-records.js';
import type { ApprovalStatus, RiskLevel } from './approval-domain.js';

/** The `approvals` table's one module: every query on it is here (STYLE, records modules). */

export interface NewApproval {
  /** A caller that may run twice (a retried job) names the approval; a repeat is ignored. */
  id?: string;
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

export async function insertApproval(
  tx: Db | Tx,
  input: NewApproval,
  now: number,
): Promise<string> {
  const [id] = await insertApprovals(tx, [input], now);
  return id!;
}

/**
 * Several approvals in one statement (an alert storm opens many incidents per batch);
 * returns their ids in order. A repeated id is ignored, as with one.
 */
export async function insertApprovals(
  tx: Db | Tx,
  inputs: readonly NewApproval[],
  now: number,
): Promise<string[]> {
  // A UUID keeps `approve:<id>:<nonce>` inside the chat API's 64-byte callback_data limit.
  const rows = inputs.map((input) => ({
    id: input.id ?? timeOrderedId(),
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
  }));
  if (rows.length > 0) await insertApprovalRows(tx, rows);
  return rows.map((row) => row.id);
}

const insertApprovalRows = insertBuiltOnce(
  'approvals',
  [
    'id',
    'incident_id',
    'status',
    'risk_level',
    'action',
    'description',
    'requested_by',
    'metadata',
    'blast_radius',
    'dry_run_checks',
    'created_at',
    'updated_at',
  ],
  (insert) => insert.onConflict((oc) => oc.column('id').doNothing()),
);

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
  /** who approved so far, in the order they signed */
  signed_by: string[];
  created_at: string;
  updated_at: string;
}

/** Approvals as a list shows them, each with who signed it so far. */
export async function approvalSummaries(
  db: Db,
  rows: ApprovalSummaryRow[],
): Promise<ApprovalSummary[]> {
  const signed = await signersOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    id: row.id,
    incident_id: row.incident_id,
    status: row.status as ApprovalStatus,
    risk_level: row.risk_level as RiskLevel,
    action: row.action,
    requested_by: row.requested_by,
    signers: signed.get(row.id)?.length ?? 0,
    signed_by: signed.get(row.id) ?? [],
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  }));
}

export interface ApprovalFilters {
  status?: string;
  incident_id?: string;
  ids?: readonly string[];
}

/** One page of approvals, newest first, the page's summaries shown through `viewsOf`. */
export function listApprovals<Item>(
  db: Db,
  filters: ApprovalFilters,
  page: { limit?: number; cursor?: string },
  viewsOf: (summaries: ApprovalSummary[]) => Item[] | Promise<Item[]>,
): Promise<Page<Item>> {
  const { status, incident_id, ids } = filters;
  return listNewestFirst(db, 'approvals', { status, incident_id, id: ids }, page, {
    columns: APPROVAL_SUMMARY_COLUMNS,
    viewsOf: async (rows) => viewsOf(await approvalSummaries(db, rows)),
  });
}

export async function findApproval(db: Db, id: string): Promise<Approval | undefined> {
  const row = await db.selectFrom('approvals').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? approvalFromRow(row) : undefined;
}

/** findApproval batched with the lookups made beside it (support/batched-lookup.ts). */
export const lookUpApproval = batchedLookup(async (db: Db, ids: string[]) => {
  const rows = await db.selectFrom('approvals').selectAll().where('id', 'in', ids).execute();
  return rows.map((row) => [row.id, approvalFromRow(row)] as const);
});

export async function approvalExists(db: Db, id: string): Promise<boolean> {
  const row = await db.selectFrom('approvals').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

/** What a decision checks first: the approval's status and risk. */
export function approvalStateOf(
  tx: Tx,
  id: string,
): Promise<
  { id: string; status: string; risk_level: string; incident_id: string | null } | undefined
> {
  return tx
    .selectFrom('approvals')
    .select(['id', 'status', 'risk_level', 'incident_id'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Moves an approval to `status`; the caller holds its lock and has checked the move. */
export async function setApprovalStatus(
  tx: Tx,
  id: string,
  status: ApprovalStatus,
  now: number,
): Promise<void> {
  await tx.updateTable('approvals').set({ status, updated_at: now }).where('id', '=', id).execute();
}

/**
 * The pending approval `approvalId` names, as a subquery, so a query over another table can
 * ask `eb.exists(pendingApprovalRow(tx, eb.ref('incidents.approval_id')))` without naming this
 * one. A lookup by the unique id, once per outer row, as a join on it would be.
 */
export function pendingApprovalRow(db: Db | Tx, approvalId: Expression<string | null>) {
  return db
    .selectFrom('approvals')
    .select('approvals.id')
    .where('approvals.id', '=', approvalId)
    .where('approvals.status', '=', 'pending');
}

/** Approvals requested at or after `since`. */
export async function countApprovalsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Approvals waiting for a decision (a critical one may already carry its first signature). */
export async function countPendingApprovals(db: Db): Promise<number> {
  const row = await db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
