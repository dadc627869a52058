import crypto from 'node:crypto';
import type { ColumnDefinitionBuilder, Kysely, Migration, MigrationProvider } from 'kysely';

type Dialect = 'sqlite' | 'postgres';
// biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
type AnyDb = Kysely<any>;

/** Epoch milliseconds overflow a 32-bit integer on PostgreSQL; SQLite integers are 64-bit. */
const time = 'bigint';

/** An auto-numbered primary key: `serial` on PostgreSQL, `integer … autoincrement` on SQLite. */
function serial(dialect: Dialect) {
  return dialect === 'postgres' ? 'serial' : 'integer';
}

function rowNumber(dialect: Dialect) {
  return (column: ColumnDefinitionBuilder) =>
    dialect === 'postgres' ? column.primaryKey() : column.primaryKey().autoIncrement();
}

/** One ordered list of migrations; only column types for auto-numbering differ by dialect. */
function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_foundation': {
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
        await db.schema
          .createIndex('jobs_due')
          .on('jobs')
          .columns(['status', 'run_after'])
          .execute();
      },
    },
    '0002_errtracker': {
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
    },
    '0003_approvals_chat_repair': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('approval_decisions')
          .addColumn('seq', serial(dialect), rowNumber(dialect))
          .addColumn('approval_id', 'text', (c) => c.notNull())
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('decision', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('from_status', 'text', (c) => c.notNull())
          .addColumn('to_status', 'text', (c) => c.notNull())
          .addColumn('created_at', time, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('approval_decisions_approval')
          .on('approval_decisions')
          .columns(['approval_id', 'seq'])
          .execute();
        await db.schema
          .createTable('chat_cards')
          .addColumn('nonce', 'text', (c) => c.primaryKey())
          .addColumn('approval_id', 'text', (c) => c.notNull())
          .addColumn('chat_id', 'text', (c) => c.notNull())
          .addColumn('message_id', 'integer')
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('expires_at', time, (c) => c.notNull())
          .addColumn('consumed_at', time)
          .addColumn('created_at', time, (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('chat_cards_approval')
          .on('chat_cards')
          .columns(['approval_id', 'created_at'])
          .execute();
        await db.schema
          .createTable('settings')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('updated_at', time, (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('operation_log')
          .addColumn('seq', serial(dialect), rowNumber(dialect))
          .addColumn('id', 'text', (c) => c.notNull().unique())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('incident_id', 'text')
          .addColumn('approval_id', 'text')
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action_detail', 'text', (c) => c.notNull())
          .addColumn('success', 'integer', (c) => c.notNull())
          .addColumn('error_message', 'text')
          .addColumn('context', 'text', (c) => c.notNull())
          .addColumn('created_at', time, (c) => c.notNull())
          .addColumn('prev_hash', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('operation_log_approval')
          .on('operation_log')
          .columns(['approval_id', 'seq'])
          .execute();
        await db.schema
          .createIndex('operation_log_incident')
          .on('operation_log')
          .columns(['incident_id', 'seq'])
          .execute();
      },
    },
    '0004_analysis_tasks': {
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
    },
    // Every stage of a delivery (received, deduplicated, …) carries the same payload, and a
    // tracker retrying sends the same bytes again: each distinct payload is stored once.
    '0005_event_payloads': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('event_payloads')
          .addColumn('digest', 'text', (c) => c.primaryKey())
          .addColumn('body', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .alterTable('external_alert_events')
          .addColumn('payload_digest', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        let after = 0;
        for (;;) {
          const rows: Array<{ seq: number; payload: string }> = await db
            .selectFrom('external_alert_events')
            .select(['seq', 'payload'])
            .where('seq', '>', after)
            .orderBy('seq')
            .limit(500)
            .execute();
          if (rows.length === 0) break;
          for (const row of rows) {
            const digest = crypto.createHash('sha256').update(row.payload).digest('hex');
            await db
              .insertInto('event_payloads')
              .values({ digest, body: row.payload })
              .onConflict((oc) => oc.column('digest').doNothing())
              .execute();
            await db
              .updateTable('external_alert_events')
              .set({ payload_digest: digest })
              .where('seq', '=', row.seq)
              .execute();
          }
          after = rows[rows.length - 1]!.seq;
        }
        await db.schema.alterTable('external_alert_events').dropColumn('payload').execute();
      },
    },
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
