import type { Migration } from 'kysely';
import { type AnyDb, time } from './migration-kit.js';

// CONTRACT, Heartbeats: a source that beats, how long it may stay quiet, and the incident its
// silence opened. Keyed by the name the source beats under.
export function migration0011Heartbeats(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .createTable('heartbeats')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
        .addColumn('severity', 'text', (c) => c.notNull())
        .addColumn('namespace', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('last_beat_at', time, (c) => c.notNull())
        .addColumn('expires_at', time, (c) => c.notNull())
        .addColumn('incident_id', 'text')
        .execute();
      await db.schema
        .createIndex('heartbeats_due')
        .on('heartbeats')
        .columns(['status', 'expires_at'])
        .execute();
    },
  };
}
