import { type MigrationResultSet, Migrator } from 'kysely';
import type { Db } from '../../ports/store.js';
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
  const { error, results } = await retryingScanRaces(() => migrator.migrateToLatest(), schema);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? '');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/**
 * Kysely's migrator looks for its tables across every schema of the database; another
 * tenant's schema dropped or changed during that scan fails it ("schema … does not exist",
 * "relation "other.table" does not exist", "column … of relation … does not exist"), though nothing of ours is wrong. Such a race
 * fails no migration of ours, and passes on a second look.
 */
export async function retryingScanRaces(
  migrate: () => Promise<MigrationResultSet>,
  schema: string | undefined,
): Promise<MigrationResultSet> {
  let outcome = await migrate();
  // Where schemas come and go all the time (a busy test database, tenants being removed) a
  // second scan can meet another drop: look again, waiting longer each time (about 6 s in all).
  for (let retry = 0; retry < 10 && isSchemaScanRace(outcome, schema); retry++) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** retry, 1000)));
    outcome = await migrate();
  }
  return outcome;
}

/**
 * Another schema than ours vanished or changed while the migrator scanned them all: the scan
 * failed before any migration of ours ran, naming a schema that is not ours or a column.
 */
function isSchemaScanRace(outcome: MigrationResultSet, schema: string | undefined): boolean {
  const { error, results } = outcome;
  if (!(error instanceof Error) || results?.some((result) => result.status === 'Error')) {
    return false;
  }
  const vanished = /schema "([^"]+)" does not exist/.exec(error.message);
  if (vanished) return vanished[1] !== schema;
  const relation = /relation "([^".]+)\.[^"]+" does not exist/.exec(error.message);
  if (relation) return relation[1] !== schema;
  return /column "[^"]+" of relation "[^"]+" does not exist/.test(error.message);
}

/** Deleted per pass, so a pass never holds many row locks at once. */
const PRUNED_PER_PASS = 10_000;

/**
 * Deletes lock rows nobody has taken since `before`: one is made per name (a fingerprint,
 * a stream), so without this the table grows with every fingerprint ever seen. Safe at any
 * age: the delete waits for a transaction holding the row to end, and an upsert racing the
 * delete waits for it and then inserts the row anew, so one transaction at a time still
 * holds a name.
 */
export async function pruneLockRows(db: Db, before: number): Promise<number> {
  let pruned = 0;
  for (;;) {
    const result = await db
      .deleteFrom('mutexes')
      .where('name', 'in', (eb) =>
        eb
          .selectFrom('mutexes')
          .select('name')
          .where('touched_at', '<', before)
          .limit(PRUNED_PER_PASS),
      )
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    pruned += deleted;
    if (deleted < PRUNED_PER_PASS) return pruned;
  }
}

/** The `code` a database driver puts on its errors (SQLite result code, PostgreSQL SQLSTATE). */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
