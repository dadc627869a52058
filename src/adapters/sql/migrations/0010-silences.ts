import type { Migration } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

// CONTRACT, Silences: Alertmanager's silences, by their UUID. Each replica keeps the
// unexpired ones in memory and loads them by `ends_at`; what each silence muted is counted
// beside it, so the console can show it without scanning the alerts.
export function migration0010Silences(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('silences')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('matchers', 'text', (c) => c.notNull())
        .addColumn('starts_at', time, (c) => c.notNull())
        .addColumn('ends_at', time, (c) => c.notNull())
        .addColumn('updated_at', time, (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('comment', 'text', (c) => c.notNull())
        .addColumn('silenced_alerts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('recent_silenced', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema.createIndex('silences_ends_at').on('silences').column('ends_at').execute();
    },
  };
}
