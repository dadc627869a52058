import type { Migration } from 'kysely';
import type { AnyDb } from './migration-kit.js';

// Auto-repair asks, for every new incident, how often the matched playbook has succeeded for
// real. Counting EXECUTION_COMPLETED entries grew with the log (every dry run adds one), so a
// counter kept beside the log answers it; it is backfilled from the log here.
export function migration0008PlaybookRunCounts(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('playbook_run_counts')
        .addColumn('playbook_id', 'text', (c) => c.primaryKey())
        .addColumn('real_successes', 'integer', (c) => c.notNull())
        .execute();
      const counts = new Map<string, number>();
      let after = 0;
      for (;;) {
        const rows: Array<{ seq: number; context: string }> = await db
          .selectFrom('operation_log')
          .select(['seq', 'context'])
          .where('type', '=', 'EXECUTION_COMPLETED')
          .where('success', '=', 1)
          .where('seq', '>', after)
          .orderBy('seq')
          .limit(500)
          .execute();
        if (rows.length === 0) break;
        for (const row of rows) {
          const context = JSON.parse(row.context) as { playbook_id?: unknown; executor?: unknown };
          if (typeof context.playbook_id === 'string' && context.executor !== 'dry-run') {
            counts.set(context.playbook_id, (counts.get(context.playbook_id) ?? 0) + 1);
          }
        }
        after = rows[rows.length - 1]!.seq;
      }
      for (const [playbookId, realSuccesses] of counts) {
        await db
          .insertInto('playbook_run_counts')
          .values({ playbook_id: playbookId, real_successes: realSuccesses })
          .execute();
      }
    },
  };
}
