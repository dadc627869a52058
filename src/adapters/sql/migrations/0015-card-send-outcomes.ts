import { type Migration, sql } from 'kysely';
import type { AnyDb } from './migration-kit.js';

// CONTRACT, Under races, crashes and abuse, "Exactly once outside": a card whose send was cut
// off by a crash (no message id, no outcome) is sent once more by the follow-up run again, at
// most once. `send_attempts` counts the sends begun; `send_outcome` says why a card without a
// message id has one: `failed` (the chat refused it, recorded) or `waiting` (it waits out a
// 429 in a process's queue). Rows written before this step without a message id keep the
// rule they were written under, no second send, as nothing recorded their outcome.
export function migration0015CardSendOutcomes(): Migration {
  return {
    async up(db: AnyDb) {
      await db.schema
        .alterTable('chat_cards')
        .addColumn('send_attempts', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.alterTable('chat_cards').addColumn('send_outcome', 'text').execute();
      await sql`update chat_cards set send_attempts = 2 where message_id is null`.execute(db);
    },
  };
}
