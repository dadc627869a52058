import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import type { Store } from '../../src/ports/store.js';
import { dropSchema, postgresUrlWithFreshSchema, storeKinds } from '../helpers/backends.js';

const onPostgres = storeKinds().includes('postgres');

/**
 * Bad input, "never a 500 by accident": when every pooled connection stays busy past the
 * pool's checkout wait, the request is one to retry (503 with Retry-After), as when the
 * server is away.
 */
describe.runIf(onPostgres)('a PostgreSQL pool with no connection free', () => {
  let store: Store | undefined;
  let schema = '';

  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });

  it('fails the waiting query as unavailable once the checkout wait runs out', async () => {
    const fresh = postgresUrlWithFreshSchema();
    schema = fresh.schema;
    const url = new URL(fresh.url);
    url.searchParams.delete('schema');
    const opened = await createPostgresStore({ url: url.toString(), schema, poolSize: 1 });
    store = opened;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holding = opened.withLock('pool-starved', async () => held);
    try {
      const failure = await sql`select 1`.execute(opened.db).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(opened.isUnavailable(failure)).toBe(true);
    } finally {
      release();
      await holding;
    }
    expect((await sql<{ one: number }>`select 1 as one`.execute(opened.db)).rows).toEqual([
      { one: 1 },
    ]);
  });
});
