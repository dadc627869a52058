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
 * Per approval, who signed it (`approve`), in the order they signed: one entry per signer,
 * since signApproval records one per signer. Approvals without a signature are absent.
 */
export async function signersOf(
  db: Db,
  approvalIds: readonly string[],
): Promise<Map<string, string[]>> {
  const signers = new Map<string, string[]>();
  if (approvalIds.length === 0) return signers;
  const rows = await db
    .selectFrom('approval_decisions')
    .select(['approval_id', 'actor'])
    .where('decision', '=', 'approve')
    .where('approval_id', 'in', approvalIds)
    .orderBy('seq')
    .execute();
  for (const { approval_id, actor } of rows) {
    const list = signers.get(approval_id);
    if (list) list.push(actor);
    else signers.set(approval_id, [actor]);
  }
  return signers;
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

/**
 * The decision that closed an approval in `status`: its last approval or rejection (execution
 * moves come after it), or, for one closed by a move alone (it expired), that move, named by
 * the status it reached. Null when neither is recorded.
 */
export function closingDecision(
  status: string,
  decisions: ReadonlyArray<{
    decision: string;
    actor: string;
    to_status: string;
    created_at: number;
  }>,
): { decision: string; actor: string; at: number } | null {
  const last = decisions.findLast((row) => row.decision !== 'move');
  const move = decisions.findLast((row) => row.to_status === status);
  const closedBy = last ?? (move ? { ...move, decision: status } : undefined);
  return closedBy
    ? { decision: closedBy.decision, actor: closedBy.actor, at: closedBy.created_at }
    : null;
}
