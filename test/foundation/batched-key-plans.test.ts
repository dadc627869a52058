import { createQueryId, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimQueuedJobs } from '../../src/adapters/sql/sql-job-claims.js';
import {
  claimOutboxRows,
  markOutboxCompleted,
  markOutboxRelayed,
} from '../../src/features/outbox/outbox-records.js';
import type { Db } from '../../src/ports/store.js';
import { makeStore, storeKinds, type TestStore } from '../helpers/backends.js';

/**
 * The batched statements of the follow-up path look rows up by a list of keys and check a
 * guard. Without statistics SQLite takes an equality on the guard's index to match about 10
 * rows, so for a list longer than that it would walk the guard's index (in a storm, every
 * pending row, for every batch: the 0.6 ms statements the storm's profile showed) instead
 * of looking the keys up. Each must be planned as a primary-key search, whatever the length.
 * PostgreSQL plans from statistics and keeps the guard's column as it is (hiding it there
 * cost a bitmap scan on a mid-sized outbox).
 */
let store: TestStore;
beforeAll(async () => {
  store = await makeStore('sqlite');
});
afterAll(() => store?.cleanup());

const STATEMENTS = [
  ['outbox claim', (db: Db, keys: string[]) => claimOutboxRows(db, keys, 1, 2), 'outbox'],
  ['outbox relayed', (db: Db, keys: string[]) => markOutboxRelayed(db, keys, 1, 2), 'outbox'],
  ['outbox completed', (db: Db, keys: string[]) => markOutboxCompleted(db, keys, 1), 'outbox'],
  [
    'job claim',
    (db: Db, keys: string[]) => claimQueuedJobs(db, 'incident.analyze', keys, 1, 2),
    'jobs',
  ],
] as const;

/** The SQL each call runs, captured on its way to the database. */
async function statementsOf(on: Db, run: (db: Db) => Promise<unknown>): Promise<string[]> {
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await run(on.withPlugin(capture));
  return nodes.map((node) => on.getExecutor().compileQuery(node, createQueryId()).sql);
}

async function planOf(statement: string, parameters: number): Promise<string> {
  const { rows } = await store.store.db.executeQuery({
    sql: `explain query plan ${statement}`,
    parameters: Array.from({ length: parameters }, (_, index) => `value-${index}`),
    query: { kind: 'RawNode' } as never,
    queryId: createQueryId(),
  });
  return (rows as Array<{ detail: string }>).map((row) => row.detail).join(' | ');
}

const ids = (count: number) => Array.from({ length: count }, (_, index) => `job-${index}`);

describe.each([1, 12, 200])('batched key lookups of %i keys (SQLite plans)', (count) => {
  it.each(STATEMENTS)('%s searches the primary key', async (_name, run, table) => {
    const [statement] = await statementsOf(store.store.db, (db) => run(db, ids(count)));
    const parameters = (statement!.match(/\?/g) ?? []).length;
    const plan = await planOf(statement!, parameters);
    expect(plan).toMatch(new RegExp(`^SEARCH ${table} USING INDEX sqlite_autoindex_${table}_1 `));
  });
});

// Opened in beforeAll: a skipped suite's body still runs while tests are collected.
describe.runIf(storeKinds().includes('postgres'))('the same lookups on PostgreSQL', () => {
  let postgres: TestStore;
  beforeAll(async () => {
    postgres = await makeStore('postgres');
  });
  afterAll(() => postgres?.cleanup());

  it.each(STATEMENTS)('%s runs with its guard column as it is', async (_name, run) => {
    const [statement] = await statementsOf(postgres.store.db, (db) => run(db, ids(200)));
    expect(statement).not.toContain('coalesce');
  });
});
