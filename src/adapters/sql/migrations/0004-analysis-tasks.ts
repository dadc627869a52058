import type { Migration } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

export function migration0004AnalysisTasks(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('analysis_tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .addColumn('request', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull())
        .addColumn('current_step', 'text')
        .addColumn('agents_completed', 'integer', (c) => c.notNull())
        .addColumn('total_agents', 'integer', (c) => c.notNull())
        .addColumn('last_event_seq', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('result', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('started_at', time)
        .addColumn('completed_at', time)
        .addColumn('locked_until', time)
        .execute();
      // The sweep looks for running tasks whose lease ran out, and for old finished ones.
      await db.schema
        .createIndex('analysis_tasks_lease')
        .on('analysis_tasks')
        .columns(['state', 'locked_until'])
        .execute();
      await db.schema
        .createIndex('analysis_tasks_completed')
        .on('analysis_tasks')
        .columns(['completed_at'])
        .execute();
      await db.schema
        .createTable('analysis_task_events')
        .addColumn('task_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addPrimaryKeyConstraint('analysis_task_events_pk', ['task_id', 'seq'])
        .execute();
    },
  };
}
