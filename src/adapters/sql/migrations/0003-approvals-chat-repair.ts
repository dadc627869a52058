import type { Migration } from 'kysely';
import { type AnyDb, type Dialect, rowNumber, serial, time } from './migration-kit.js';

export function migration0003ApprovalsChatRepair(dialect: Dialect): Migration {
  return {
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
  };
}
