import type { Migration } from 'kysely';
import { type AnyDb, type Dialect, rowNumber, serial, time } from './migration-kit.js';

export function migration0001Foundation(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('mutexes')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('touched_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('once_keys')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .addPrimaryKeyConstraint('once_keys_pk', ['scope', 'key'])
        .execute();
      await db.schema
        .createTable('incidents')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('workload', 'text', (c) => c.notNull())
        .addColumn('alert_type', 'text', (c) => c.notNull())
        .addColumn('alert_type_source', 'text', (c) => c.notNull())
        .addColumn('alert_name', 'text', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('target_resource', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('labels', 'text', (c) => c.notNull())
        .addColumn('annotations', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('hit_count', 'integer', (c) => c.notNull())
        .addColumn('first_seen', time, (c) => c.notNull())
        .addColumn('last_seen', time, (c) => c.notNull())
        .addColumn('approval_id', 'text')
        .execute();
      await db.schema
        .createIndex('incidents_fingerprint')
        .on('incidents')
        .columns(['fingerprint', 'seq'])
        .execute();
      await db.schema
        .createTable('alerts')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('alert_id', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('received_at', time, (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('alerts_incident')
        .on('alerts')
        .columns(['incident_id', 'seq'])
        .execute();
      await db.schema
        .createTable('approvals')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('incident_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('risk_level', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('requested_by', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull())
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('approvals_status')
        .on('approvals')
        .columns(['status', 'seq'])
        .execute();
      await db.schema
        .createTable('stream_entries')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('ms', time, (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('fields', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('stream_entries_pk', ['stream', 'ms', 'seq'])
        .execute();
      await db.schema
        .createTable('stream_groups')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('group_name', 'text', (c) => c.notNull())
        .addColumn('last_ms', time, (c) => c.notNull())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('stream_groups_pk', ['stream', 'group_name'])
        .execute();
      await db.schema
        .createTable('stream_pending')
        .addColumn('stream', 'text', (c) => c.notNull())
        .addColumn('group_name', 'text', (c) => c.notNull())
        .addColumn('ms', time, (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('consumer', 'text', (c) => c.notNull())
        .addColumn('delivered_at', time, (c) => c.notNull())
        .addColumn('deliveries', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('stream_pending_pk', ['stream', 'group_name', 'ms', 'seq'])
        .execute();
      await db.schema
        .createTable('signal_outcomes')
        .addColumn('entry_id', 'text', (c) => c.primaryKey())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .addColumn('processed_at', time, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts_made', 'integer', (c) => c.notNull())
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('run_after', time, (c) => c.notNull())
        .addColumn('locked_until', time)
        .addColumn('last_error', 'text')
        .addColumn('created_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('jobs_due').on('jobs').columns(['status', 'run_after']).execute();
    },
  };
}
