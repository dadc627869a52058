import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Store } from '../../src/ports/store.js';
import { builtOnce, insertBuiltOnce } from '../../src/support/built-once.js';
import { makeStore, storeKinds } from '../helpers/backends.js';

const entryRows = (db: Db, stream: string) =>
  db
    .selectFrom('stream_entries')
    .select(['ms', 'seq', 'fields'])
    .where('stream', '=', stream)
    .orderBy('ms')
    .execute();

describe.each(storeKinds())('statements built once, on %s', (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await makeStore(kind));
  });

  afterEach(async () => {
    await cleanup();
  });

  it('builds once per shape, then binds each call’s own values', async () => {
    let builds = 0;
    const entriesAfter = builtOnce(
      (db, { stream, after }: { stream: string; after: number }) => {
        builds++;
        return db
          .selectFrom('stream_entries')
          .select('ms')
          .where('stream', '=', stream)
          .where('ms', '>', after)
          .orderBy('ms');
      },
      ({ stream, after }) => [stream, after],
      () => '',
      { checkEveryCall: false },
    );
    const insert = insertBuiltOnce('stream_entries', ['stream', 'ms', 'seq', 'fields']);
    await insert(store.db, [
      { stream: 'a', ms: 1, seq: 0, fields: '{}' },
      { stream: 'a', ms: 2, seq: 0, fields: '{"k":"v"}' },
    ]);
    await insert(store.db, [
      { stream: 'b', ms: 3, seq: 0, fields: '{}' },
      { stream: 'b', ms: 4, seq: 1, fields: '{}' },
    ]);
    expect(await entryRows(store.db, 'a')).toEqual([
      { ms: 1, seq: 0, fields: '{}' },
      { ms: 2, seq: 0, fields: '{"k":"v"}' },
    ]);
    expect((await entriesAfter(store.db, { stream: 'a', after: 1 })).rows).toEqual([{ ms: 2 }]);
    expect((await entriesAfter(store.db, { stream: 'b', after: 0 })).rows).toEqual([
      { ms: 3 },
      { ms: 4 },
    ]);
    expect(builds).toBe(1);
  });

  it('runs in the transaction it is given', async () => {
    const insert = insertBuiltOnce('stream_entries', ['stream', 'ms', 'seq', 'fields']);
    await expect(
      store.db.transaction().execute(async (tx) => {
        await insert(tx, [{ stream: 'rolled', ms: 1, seq: 0, fields: '{}' }]);
        expect(await entryRows(tx, 'rolled')).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await entryRows(store.db, 'rolled')).toEqual([]);
  });

  it('refuses parameters listed in another order than the SQL binds them', async () => {
    const wrong = builtOnce(
      (db, { stream, after }: { stream: string; after: number }) =>
        db
          .selectFrom('stream_entries')
          .select('ms')
          .where('stream', '=', stream)
          .where('ms', '>', after),
      ({ stream, after }) => [after, stream],
    );
    await expect(wrong(store.db, { stream: 's', after: 1 })).rejects.toThrow(/binds \["s",1\]/);
  });

  it('refuses a row without one of the columns on every call, and never writes an unlisted key', async () => {
    const insert = insertBuiltOnce('signal_outcomes', [
      'entry_id',
      'outcome',
      'incident_id',
      'processed_at',
    ]);
    const full = { entry_id: '1-0', outcome: 'recorded', incident_id: null, processed_at: 1 };
    await insert(store.db, [full]);
    const { incident_id: _left, ...missing } = { ...full, entry_id: '2-0' };
    // The shape of one row is built already: a row leaving a column to its default still throws.
    await expect(insert(store.db, [missing as typeof full])).rejects.toThrow(
      /no value for incident_id/,
    );
    const extra = { ...full, entry_id: '3-0', unknown_column: 'x' };
    await insert(store.db, [extra as typeof full]);
    const rows = await store.db.selectFrom('signal_outcomes').select('entry_id').execute();
    expect(rows.map((row) => row.entry_id).sort()).toEqual(['1-0', '3-0']);
  });

  it('shares a build between a database and its transactions', async () => {
    let builds = 0;
    const newest = builtOnce(
      (db, stream: string) => {
        builds++;
        return db.selectFrom('stream_entries').select('ms').where('stream', '=', stream);
      },
      (stream) => [stream],
      () => '',
      { checkEveryCall: false },
    );
    await newest(store.db, 'a');
    await store.db.transaction().execute((tx) => newest(tx, 'b'));
    expect(builds).toBe(1);
  });

  it('builds each call once its texts fill the budget, and still binds the right values', async () => {
    let builds = 0;
    const byStreams = builtOnce(
      (db, streams: string[]) => {
        builds++;
        return db.selectFrom('stream_entries').select('stream').where('stream', 'in', streams);
      },
      (streams) => streams,
      (streams) => streams.length,
      { checkEveryCall: false, textBudget: 80 },
    );
    const insert = insertBuiltOnce('stream_entries', ['stream', 'ms', 'seq', 'fields']);
    await insert(store.db, [
      { stream: 'a', ms: 1, seq: 0, fields: '{}' },
      { stream: 'b', ms: 1, seq: 0, fields: '{}' },
    ]);
    expect((await byStreams(store.db, ['a'])).rows).toEqual([{ stream: 'a' }]);
    expect((await byStreams(store.db, ['b'])).rows).toEqual([{ stream: 'b' }]);
    expect(builds).toBe(1); // one short text kept
    const both = async () =>
      (await byStreams(store.db, ['a', 'b', 'c'])).rows.map((row) => row.stream).sort();
    expect(await both()).toEqual(['a', 'b']);
    expect(await both()).toEqual(['a', 'b']);
    expect(builds).toBe(3); // past the budget: built on each call
  });

  it('when checking every call, catches a shape that misses what changes the text', async () => {
    const byIds = builtOnce(
      (db, ids: string[]) =>
        db.selectFrom('stream_entries').select('ms').where('stream', 'in', ids),
      (ids) => ids,
      () => 'one shape for every length',
      { checkEveryCall: true },
    );
    await byIds(store.db, ['a']);
    await expect(byIds(store.db, ['a', 'b'])).rejects.toThrow(/one shape built two texts/);
  });
});
