import type { Db, Tx } from '../../ports/store.js';

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

export async function realSuccesses(db: Db, playbookId: string): Promise<number> {
  const row = await db
    .selectFrom('playbook_run_counts')
    .select('real_successes')
    .where('playbook_id', '=', playbookId)
    .executeTakeFirst();
  return row?.real_successes ?? 0;
}
