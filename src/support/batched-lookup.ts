import { groupCommit } from './group-commit.js';
import { inChunks } from './in-chunks.js';

/**
 * Reads by key, batched: lookups of one source (a database) made in the same tick are
 * answered by one `readMany` per 500 keys, and lookups made while it runs by the next one.
 * A storm's follow-up jobs, side by side, read their incidents in a few statements rather
 * than one round trip each. A key `readMany` does not return looks up as undefined.
 */
export function batchedLookup<S extends object, V>(
  readMany: (source: S, keys: string[]) => Promise<Iterable<readonly [string, V]>>,
): (source: S, key: string) => Promise<V | undefined> {
  const perSource = new WeakMap<S, (key: string) => Promise<V | undefined>>();
  return (source, key) => {
    let lookup = perSource.get(source);
    if (!lookup) {
      const batch = groupCommit<string, V | undefined>(async (keys) => {
        const found = new Map<string, V>();
        for (const chunk of inChunks([...new Set(keys)])) {
          for (const [foundKey, value] of await readMany(source, chunk)) found.set(foundKey, value);
        }
        return keys.map((each) => found.get(each));
      });
      lookup = (each) => batch.add(each);
      perSource.set(source, lookup);
    }
    return lookup(key);
  };
}
