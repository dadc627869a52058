import type { Db, Tx } from '../../ports/store.js';
import { batchedLookup } from '../../support/batched-lookup.js';

/**
 * The `playbook_run_counts` table's one module: successful real (not dry-run) runs per
 * playbook, counted when their EXECUTION_COMPLETED entry is appended, in its transaction.
 */

export async function countRealSuccess(tx: Tx, playbookId: string): Promise<void> {
  await tx
    .insertInto('playbook_run_counts')
    .values({ playbook_id: playbookId, real_successes: 1 })
    .onConflict((oc) =>
      oc.column('playbook_id').doUpdateSet((eb) => ({
        real_successes: eb('playbook_run_counts.real_successes', '+', 1),
      })),
    )
    .execute();
}

/**
 * Successful real runs per playbook, absent when none, batched with the lookups made beside it
 * (support/batched-lookup.ts). Dry runs do not count: a playbook that has only been simulated
 * has never changed a cluster, so its first real run is still a cold start.
 */
export const lookUpRealSuccesses = batchedLookup(async (db: Db, playbookIds: string[]) => {
  const rows = await db
    .selectFrom('playbook_run_counts')
    .select(['playbook_id', 'real_successes'])
    .where('playbook_id', 'in', playbookIds)
    .execute();
  return rows.map((row) => [row.playbook_id, row.real_successes] as const);
});
