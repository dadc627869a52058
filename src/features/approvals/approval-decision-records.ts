import type { Insertable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';

/** The `approval_decisions` table's one module: every signature, rejection and status move. */

export type NewApprovalDecision = Insertable<Tables['approval_decisions']>;

export async function insertDecision(tx: Tx, decision: NewApprovalDecision): Promise<void> {
  await tx.insertInto('approval_decisions').values(decision).execute();
}

/** Who has signed (`approve`) an approval so far, one entry per signature recorded. */
export async function approversOf(tx: Tx, approvalId: string): Promise<string[]> {
  const rows = await tx
    .selectFrom('approval_decisions')
    .select('actor')
    .where('approval_id', '=', approvalId)
    .where('decision', '=', 'approve')
    .execute();
  return rows.map((row) => row.actor);
}

/**
 * Per approval, how many `approve` decisions it has: its distinct signers, since signApproval
 * records one per signer. Approvals without one are absent.
 */
export async function signerCounts(
  db: Db,
  approvalIds: readonly string[],
): Promise<Map<string, number>> {
  const signed = new Map<string, number>();
  if (approvalIds.length === 0) return signed;
  const counts = await db
    .selectFrom('approval_decisions')
    .select((eb) => ['approval_id', eb.fn.countAll().as('signers')])
    .where('decision', '=', 'approve')
    .where('approval_id', 'in', approvalIds)
    .groupBy('approval_id')
    .execute();
  for (const row of counts) signed.set(row.approval_id, Number(row.signers));
  return signed;
}

/** Every decision and status move on an approval, oldest first. */
export function decisionsOf(db: Db, approvalId: string) {
  return db
    .selectFrom('approval_decisions')
    .select(['actor', 'decision', 'channel', 'from_status', 'to_status', 'created_at'])
    .where('approval_id', '=', approvalId)
    .orderBy('seq')
    .execute();
}
