import { type Migration, sql } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

// An outbox row now lives until its job reports completion, not only until the queue took
// the job: a queue that loses the job (Redis without persistence) or lets it run out of
// attempts (a long outage) gets it offered again. Rows relayed before this step count as done.
export function migration0007OutboxCompletion(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema.alterTable('outbox').addColumn('completed_at', time).execute();
      await db.schema.alterTable('outbox').addColumn('gave_up_at', time).execute();
      await sql`update outbox set completed_at = relayed_at where relayed_at is not null`.execute(
        db,
      );
      await db.schema.dropIndex('outbox_due').execute();
      await db.schema
        .createIndex('outbox_pending')
        .on('outbox')
        .columns(['completed_at', 'relay_after'])
        .execute();
    },
  };
}
