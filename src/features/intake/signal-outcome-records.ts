import type { Selectable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';
import { builtOnce, insertBuiltOnce } from '../../support/built-once.js';

/** The `signal_outcomes` table's one module: how each `platform:signals` entry was handled. */

export type SignalOutcome = Selectable<Tables['signal_outcomes']>;

type OutcomeRow = Parameters<typeof insertOutcomes>[1][number];

const OUTCOME_COLUMNS = ['entry_id', 'outcome', 'incident_id', 'processed_at'] as const;
const insertOutcomes = insertBuiltOnce('signal_outcomes', OUTCOME_COLUMNS);
const insertOutcomesOnce = insertBuiltOnce('signal_outcomes', OUTCOME_COLUMNS, (insert) =>
  insert.onConflict((oc) => oc.column('entry_id').doNothing()),
);

/** Outcomes written in their alert's transaction, after checking none exists (converge.ts). */
export async function insertSignalOutcomes(
  tx: Db | Tx,
  outcomes: readonly OutcomeRow[],
): Promise<void> {
  await insertOutcomes(tx, outcomes);
}

/** Outcomes of entries that may have been recorded already (a re-delivery): the first stays. */
export async function recordSignalOutcomesOnce(
  db: Db,
  outcomes: readonly OutcomeRow[],
): Promise<void> {
  await insertOutcomesOnce(db, outcomes);
}

const outcomesOf = builtOnce(
  (db: Db, entryIds: readonly string[]) =>
    db.selectFrom('signal_outcomes').selectAll().where('entry_id', 'in', entryIds),
  (entryIds) => [...entryIds],
  (entryIds) => entryIds.length,
);

/** The outcomes recorded for some entries; entries not handled yet have none. */
export async function signalOutcomesOf(
  db: Db | Tx,
  entryIds: readonly string[],
): Promise<SignalOutcome[]> {
  return (await outcomesOf(db, entryIds)).rows;
}
