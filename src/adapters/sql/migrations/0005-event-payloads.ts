import crypto from 'node:crypto';
import type { Migration } from 'kysely';
import type { AnyDb } from './migration-kit.js';

// Every stage of a delivery (received, deduplicated, …) carries the same payload, and a
// tracker retrying sends the same bytes again: each distinct payload is stored once.
export function migration0005EventPayloads(): Migration {
  return {
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
  };
}
