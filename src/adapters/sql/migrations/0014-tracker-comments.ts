import type { Migration } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

// CONTRACT, Under races, crashes and abuse: an error-tracker comment is sent once per issue
// across retries and `kill -9`. One row per analysis job (an accepted delivery of an issue),
// written before the comment is posted and marked once the tracker took it.
export function migration0014TrackerComments(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('tracker_comments')
        .addColumn('job_id', 'text', (c) => c.primaryKey())
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('posted_at', time)
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();
    },
  };
}
