import type { Migration } from 'kysely';
import { type AnyDb, type Dialect, rowNumber, serial, time } from './migration-kit.js';

// CONTRACT, Incident lifecycle: an incident is acknowledged and resolved by someone, may be
// reopened, and keeps a timeline of those moves. Existing incidents stay `open`.
export function migration0009IncidentLifecycle(dialect: Dialect): Migration {
  return {
    async up(db: AnyDb) {
      for (const [column, type] of [
        ['acknowledged_by', 'text'],
        ['acknowledged_at', time],
        ['resolved_by', 'text'],
        ['resolved_at', time],
      ] as const) {
        await db.schema.alterTable('incidents').addColumn(column, type).execute();
      }
      await db.schema
        .alterTable('incidents')
        .addColumn('reopen_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('incidents_unresolved_last_seen')
        .on('incidents')
        .columns(['status', 'last_seen'])
        .execute();
      await db.schema
        .createTable('incident_timeline')
        .addColumn('seq', serial(dialect), rowNumber(dialect))
        .addColumn('incident_id', 'text', (c) => c.notNull())
        .addColumn('at', time, (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('incident_timeline_incident')
        .on('incident_timeline')
        .columns(['incident_id', 'seq'])
        .execute();
    },
  };
}
