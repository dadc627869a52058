import { describe, expect, it } from 'vitest';
import { lookUpIncident } from '../../src/features/incidents/incident-records.js';
import { batchedLookup } from '../../src/support/batched-lookup.js';
import { makeStore, storeKinds } from '../helpers/backends.js';

describe('batchedLookup', () => {
  it('answers lookups made together with one read of their distinct keys, in order', async () => {
    const reads: string[][] = [];
    const source = {
      values: new Map([
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ]),
    };
    const lookUp = batchedLookup(async (from: typeof source, keys: string[]) => {
      reads.push(keys);
      return keys.flatMap((key) =>
        from.values.has(key) ? [[key, from.values.get(key)!] as const] : [],
      );
    });
    const found = await Promise.all(
      ['b', 'a', 'missing', 'b', 'c'].map((key) => lookUp(source, key)),
    );
    expect(found).toEqual([2, 1, undefined, 2, 3]);
    expect(reads).toEqual([['b', 'a', 'missing', 'c']]);
    // Later lookups read again: nothing is cached.
    source.values.set('a', 10);
    expect(await lookUp(source, 'a')).toBe(10);
    expect(reads).toHaveLength(2);
  });

  it('keeps sources apart, and reads more than 500 keys in statements of 500', async () => {
    const reads: Array<{ source: string; keys: number }> = [];
    const lookUp = batchedLookup(async (from: { name: string }, keys: string[]) => {
      reads.push({ source: from.name, keys: keys.length });
      return keys.map((key) => [key, `${from.name}:${key}`] as const);
    });
    const one = { name: 'one' };
    const two = { name: 'two' };
    const keys = Array.from({ length: 1200 }, (_, i) => `k${i}`);
    const [first, second] = await Promise.all([
      Promise.all(keys.map((key) => lookUp(one, key))),
      lookUp(two, 'k1'),
    ]);
    expect(first[1199]).toBe('one:k1199');
    expect(second).toBe('two:k1');
    expect(reads).toEqual([
      { source: 'one', keys: 500 },
      { source: 'one', keys: 500 },
      { source: 'one', keys: 200 },
      { source: 'two', keys: 1 },
    ]);
  });

  it('fails only the lookup whose key the read refuses, not the ones beside it', async () => {
    const lookUp = batchedLookup(async (_from: object, keys: string[]) => {
      if (keys.includes('poison')) throw new Error('refused');
      return keys.map((key) => [key, key.length] as const);
    });
    const source = {};
    const outcomes = await Promise.allSettled(
      ['ab', 'poison', 'abc'].map((key) => lookUp(source, key)),
    );
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('refused') },
      { status: 'fulfilled', value: 3 },
    ]);
  });
});

describe.each(storeKinds())('lookUpIncident on %s', (kind) => {
  it('finds incidents looked up together, and none for an unknown id', async () => {
    const { store, cleanup } = await makeStore(kind);
    try {
      const found = await Promise.all(
        ['inc-unknown', 'inc-also-unknown'].map((id) => lookUpIncident(store.db, id)),
      );
      expect(found).toEqual([undefined, undefined]);
    } finally {
      await cleanup();
    }
  });
});
