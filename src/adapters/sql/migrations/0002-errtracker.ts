import type { Migration } from 'kysely';
import { type AnyDb, type Dialect, rowNumber, serial, time } from './migration-kit.js';

export function migration0002Errtracker(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('external_alert_events')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('project', 'text', (c) => c.notNull())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('issue_id', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('target_resource', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('source_url', 'text')
        .addColumn('labels', 'text', (c) => c.notNull())
        .addColumn('annotations', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('operator_id', 'text')
        .addColumn('auth_method', 'text')
        .addColumn('approval_id', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('external_alert_events_stage')
        .on('external_alert_events')
        .columns(['stage', 'seq'])
        .execute();
      await db.schema
        .createIndex('external_alert_events_issue')
        .on('external_alert_events')
        .columns(['issue_id', 'seq'])
        .execute();
      await db.schema
        .createTable('anomaly_occurrences')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('anomaly_key', 'text', (c) => c.notNull())
        .addColumn('occurred_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('anomaly_occurrences_key')
        .on('anomaly_occurrences')
        .columns(['anomaly_key', 'occurred_at'])
        .execute();
      // Claims look up one job name at a time; without the name in front, every wake-up
      // scans the queued jobs of every other name.
      await db.schema
        .createIndex('jobs_claim')
        .on('jobs')
        .columns(['name', 'status', 'run_after'])
        .execute();
      await db.schema
        .alterTable('approvals')
        .addColumn('blast_radius', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema
        .alterTable('approvals')
        .addColumn('dry_run_checks', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
    },
  };
}
