import { sql } from 'kysely';
import type { Db } from '../../ports/store.js';
import { executorIn, type OperationType } from './operation-entry.js';

/**
 * What other features read from the `operation_log` table: the readbacks, the chat, the
 * approvals' views and the analysis. The append, its verification and the reads an append
 * needs under the log's lock are operation-log.ts's.
 */

export async function operationExists(db: Db, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('operation_log')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** The first `limit` entries about one approval, oldest first. */
export function operationsOfApproval(db: Db, approvalId: string, limit: number) {
  return db
    .selectFrom('operation_log')
    .select(['type', 'actor', 'action_detail', 'success', 'created_at'])
    .where('approval_id', '=', approvalId)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** The newest `limit` entries, newest first, without their context. */
export function latestOperations(db: Db, limit: number) {
  return db
    .selectFrom('operation_log')
    .select(['seq', 'type', 'actor', 'success', 'created_at', 'action_detail'])
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

/** Every entry of one type, oldest first, without its chain fields. */
export function operationsOfType(db: Db, type: OperationType) {
  return db
    .selectFrom('operation_log')
    .select(['id', 'action_detail', 'context', 'created_at'])
    .where('type', '=', type)
    .orderBy('seq')
    .execute();
}

/** Per type and outcome: how many entries in all, and how many at or after `since`. */
export function operationCountsByType(db: Db, since: number) {
  return db
    .selectFrom('operation_log')
    .select([
      'type',
      'success',
      sql<number>`count(*)`.as('total'),
      sql<number>`sum(case when created_at >= ${since} then 1 else 0 end)`.as('last_24h'),
    ])
    .groupBy(['type', 'success'])
    .execute();
}

/** Entries written at or after `since`. */
export async function countOperationsSince(db: Db, since: number): Promise<number> {
  const row = await db
    .selectFrom('operation_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The `EXECUTION_COMPLETED` entries of some incidents, dry runs included. */
export function executionsOfIncidents(db: Db, incidentIds: readonly string[]) {
  return db
    .selectFrom('operation_log')
    .select(['success', 'context'])
    .where('type', '=', 'EXECUTION_COMPLETED')
    .where('incident_id', 'in', incidentIds)
    .execute();
}

/**
 * Per approval of `approvalIds`, the executor of its latest EXECUTION_COMPLETED entry;
 * approvals never executed are absent. One statement for a page of approvals.
 */
export async function latestExecutorsOf(
  db: Db,
  approvalIds: readonly string[],
): Promise<Map<string, string | null>> {
  const executors = new Map<string, string | null>();
  if (approvalIds.length === 0) return executors;
  const rows = await db
    .selectFrom('operation_log')
    .select(['approval_id', 'context'])
    .where('type', '=', 'EXECUTION_COMPLETED')
    .where('approval_id', 'in', approvalIds)
    .orderBy('seq')
    .execute();
  // Oldest first: the latest entry of each approval is set last.
  for (const row of rows) {
    if (row.approval_id !== null) executors.set(row.approval_id, executorIn(row.context));
  }
  return executors;
}

/** The `decision` its AUTO_REPAIR_TRIGGERED entry recorded, or undefined if never evaluated. */
export async function autoRepairDecisionOf(db: Db, approvalId: string): Promise<unknown> {
  const row = await db
    .selectFrom('operation_log')
    .select('context')
    .where('approval_id', '=', approvalId)
    .where('type', '=', 'AUTO_REPAIR_TRIGGERED')
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return (JSON.parse(row.context) as { decision?: unknown } | null)?.decision;
}
