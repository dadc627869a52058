import type { Insertable, Selectable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';

/** The `signal_outcomes` table's one module: how each `platform:signals` entry was handled. */

export type SignalOutcome = Selectable<Tables['signal_outcomes']>;
export type NewSignalOutcome = Insertable<Tables['signal_outcomes']>;

/** Outcomes written in their alert's transaction, after checking none exists (converge.ts). */
export async function insertSignalOutcomes(
  tx: Db | Tx,
  outcomes: readonly NewSignalOutcome[],
): Promise<void> {
  await tx.insertInto('signal_outcomes').values(outcomes).execute();
}

/** Outcomes of entries that may have been recorded already (a re-delivery): the first stays. */
export async function recordSignalOutcomesOnce(
  db: Db,
  outcomes: readonly NewSignalOutcome[],
): Promise<void> {
  await db
    .insertInto('signal_outcomes')
    .values(outcomes)
    .onConflict((oc) => oc.column('entry_id').doNothing())
    .execute();
}

/** The outcomes recorded for some entries; entries not handled yet have none. */
export function signalOutcomesOf(
  db: Db | Tx,
  entryIds: readonly string[],
): Promise<SignalOutcome[]> {
  return db.selectFrom('signal_outcomes').selectAll().where('entry_id', 'in', entryIds).execute();
}
