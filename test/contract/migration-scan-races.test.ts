import type { MigrationResultSet } from 'kysely';
import { describe, expect, it } from 'vitest';
import { retryingScanRaces } from '../../src/adapters/sql/sql-support.js';

/**
 * Kysely's migrator scans every schema of the database: another schema dropped or changed
 * during the scan fails it though nothing of ours is wrong. Such failures are looked at again;
 * a failure of our own is not.
 */
const OURS = 't_ours';
const scanFailure = (message: string): MigrationResultSet => ({ error: new Error(message) });
const migrated: MigrationResultSet = { results: [] };

function outcomes(...sequence: MigrationResultSet[]) {
  let calls = 0;
  return {
    migrate: async () => sequence[Math.min(calls++, sequence.length - 1)]!,
    calls: () => calls,
  };
}

describe('migrations racing another schema', () => {
  it('look again after another schema vanished or changed mid-scan', async () => {
    const run = outcomes(
      scanFailure('schema "t_other" does not exist'),
      scanFailure('column "project" of relation "external_event_fields" does not exist'),
      scanFailure('schema "t_third" does not exist'),
      scanFailure('relation "t_fourth.tracker_comments" does not exist'),
      migrated,
    );
    expect(await retryingScanRaces(run.migrate, OURS)).toBe(migrated);
    expect(run.calls()).toBe(5);
  });

  it('answer at once when our own schema is missing or a migration of ours failed', async () => {
    const missing = outcomes(scanFailure(`schema "${OURS}" does not exist`), migrated);
    expect((await retryingScanRaces(missing.migrate, OURS)).error).toBeDefined();
    expect(missing.calls()).toBe(1);
    const ownRelation = outcomes(scanFailure(`relation "${OURS}.incidents" does not exist`));
    expect((await retryingScanRaces(ownRelation.migrate, OURS)).error).toBeDefined();
    expect(ownRelation.calls()).toBe(1);

    const ownFailure: MigrationResultSet = {
      error: new Error('column "x" of relation "y" does not exist'),
      results: [{ migrationName: '0015_card_send_outcomes', direction: 'Up', status: 'Error' }],
    };
    const failed = outcomes(ownFailure, migrated);
    expect(await retryingScanRaces(failed.migrate, OURS)).toBe(ownFailure);
    expect(failed.calls()).toBe(1);
  });
});
