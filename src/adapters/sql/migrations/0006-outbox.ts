import type { Migration } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

// A follow-up job written in the same transaction as the record it follows (an incident, an
// approval), relayed to the job queue after the commit: a crash or a queue outage between
// the commit and the enqueue no longer loses it. Keyed by the job id, which is what makes
// relaying twice harmless.
export function migration0006Outbox(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('outbox')
        .addColumn('job_id', 'text', (c) => c.primaryKey())
        .addColumn('job_name', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('relay_after', time, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_error', 'text')
        .addColumn('relayed_at', time)
        .execute();
      await db.schema
        .createIndex('outbox_due')
        .on('outbox')
        .columns(['relayed_at', 'relay_after'])
        .execute();
    },
  };
}
