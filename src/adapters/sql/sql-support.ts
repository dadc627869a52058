import { Migrator } from 'kysely';
import type { Db, Tx } from '../../ports/store.js';
import { migrationProvider } from './migrations.js';

/** Applies pending migrations; Kysely's migrator serializes concurrent starters. */
export async function runMigrations(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  schema?: string,
): Promise<void> {
  // The bookkeeping tables live beside ours: without this Kysely finds another schema's.
  const migrator = new Migrator({
    db,
    provider: migrationProvider(dialect),
    migrationTableSchema: schema,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? '');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** Takes the lock row for `name`; the row lock is held until the transaction ends. */
export async function lockRow(tx: Db, name: string, now: number): Promise<void> {
  await tx
    .insertInto('mutexes')
    .values({ name, touched_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ touched_at: now }))
    .execute();
}

/** One transaction holding the lock on `name`: how both SQL adapters implement withLock. */
export function lockedTransaction<T>(db: Db, name: string, work: (tx: Tx) => Promise<T>) {
  return db.transaction().execute(async (tx) => {
    await lockRow(tx, name, Date.now());
    return work(tx);
  });
}
