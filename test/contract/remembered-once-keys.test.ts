import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rememberingOnceKeys } from '../../src/adapters/memory/remembered-once-keys.js';
import { createRedisOnceKeys } from '../../src/adapters/redis/redis-once-keys.js';
import { createSqlOnceKeys } from '../../src/adapters/sql/sql-once-keys.js';
import type { Clock } from '../../src/ports/clock.js';
import type { OnceKeys } from '../../src/ports/once-keys.js';
import { makeRedis, makeStore, redisUrlForTests, storeKinds } from '../helpers/backends.js';

/** A real store, counting what reaches it. */
function counted(store: OnceKeys) {
  const asked = { claims: 0 };
  const once: OnceKeys = {
    claim: (scope, key, ttl) => {
      asked.claims += 1;
      return store.claim(scope, key, ttl);
    },
    release: (scope, key) => store.release(scope, key),
  };
  return { once, asked };
}

interface Backend {
  name: string;
  /** What the store's own expiry follows. */
  expiresBy: 'injected clock' | 'real time';
  open(clock: Clock): Promise<{ store: () => OnceKeys; cleanup: () => Promise<void> }>;
}

const backends: Backend[] = [
  ...storeKinds().map(
    (kind): Backend => ({
      name: `sql on ${kind}`,
      expiresBy: 'injected clock',
      async open(clock) {
        const { store, cleanup } = await makeStore(kind);
        return { store: () => createSqlOnceKeys(store, clock), cleanup };
      },
    }),
  ),
  ...(redisUrlForTests()
    ? [
        {
          name: 'redis',
          expiresBy: 'real time',
          async open() {
            const { prefix, cleanup } = await makeRedis();
            // A connection of its own per instance, as separate replicas have.
            const connections: Redis[] = [];
            return {
              store: () => {
                const connection = new Redis(redisUrlForTests()!, { enableAutoPipelining: true });
                connections.push(connection);
                return createRedisOnceKeys(connection, prefix);
              },
              async cleanup() {
                for (const connection of connections) connection.disconnect();
                await cleanup();
              },
            };
          },
        } satisfies Backend,
      ]
    : []),
];

describe.each(backends)('remembered claims over $name', (backend) => {
  let now: number;
  const clock: Clock = { now: () => now };
  let fixture: Awaited<ReturnType<Backend['open']>>;

  beforeEach(async () => {
    now = 1_700_000_000_000;
    fixture = await backend.open(clock);
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  it('refuses a repeat of its own claim without asking the store', async () => {
    const { once: store, asked } = counted(fixture.store());
    const once = rememberingOnceKeys(store, clock);
    expect(await once.claim('errtracker-issue', 'ISSUE-1', 600)).toBe(true);
    const repeats = await Promise.all(
      Array.from({ length: 50 }, () => once.claim('errtracker-issue', 'ISSUE-1', 600)),
    );
    expect(repeats.every((won) => !won)).toBe(true);
    expect(asked.claims).toBe(1);
    // Another key, and the same key in another scope, still go to the store.
    expect(await once.claim('errtracker-issue', 'ISSUE-2', 600)).toBe(true);
    expect(await once.claim('webhook-signature', 'ISSUE-1', 600)).toBe(true);
    expect(asked.claims).toBe(3);
  });

  it('stays exact across replicas: one winner, and a release by the winner frees the key for all', async () => {
    const first = rememberingOnceKeys(fixture.store(), clock);
    const second = rememberingOnceKeys(fixture.store(), clock);
    const race = await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 ? first : second).claim('race', 'k', 600)),
    );
    expect(race.filter(Boolean)).toHaveLength(1);
    const winner = race.indexOf(true) % 2 ? first : second;
    const other = winner === first ? second : first;
    expect(await other.claim('race', 'k', 600)).toBe(false);
    // Only the winner knows without asking; the other learns nothing from being refused.
    expect(winner.claimedHere?.('race', 'k')).toBe(true);
    expect(other.claimedHere?.('race', 'k')).toBe(false);
    await winner.release('race', 'k');
    expect(winner.claimedHere?.('race', 'k')).toBe(false);
    const again = await Promise.all(
      Array.from({ length: 40 }, (_, n) => (n % 2 ? first : second).claim('race', 'k', 600)),
    );
    expect(again.filter(Boolean)).toHaveLength(1);
  });

  it('asks the store again once the claim has expired', async () => {
    const { once: store, asked } = counted(fixture.store());
    const once = rememberingOnceKeys(store, clock);
    expect(await once.claim('webhook', 'd-1', 1)).toBe(true);
    expect(await once.claim('webhook', 'd-1', 1)).toBe(false);
    expect(asked.claims).toBe(1);
    // The remembered claim must lapse on whichever clock the store follows; with Redis the
    // injected clock stands still, so only real time can have ended it.
    if (backend.expiresBy === 'injected clock') now += 1_100;
    else await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await once.claim('webhook', 'd-1', 1)).toBe(true);
    expect(asked.claims).toBe(2);
  });

  it('forgets its oldest claims beyond 10,000, which the store then refuses', async () => {
    const { once: store, asked } = counted(fixture.store());
    const once = rememberingOnceKeys(store, clock);
    for (let start = 0; start <= 10_000; start += 1_000) {
      const keys = Array.from({ length: 1_000 }, (_, n) => `k-${start + n}`).filter(
        (key) => Number(key.slice(2)) <= 10_000,
      );
      const won = await Promise.all(keys.map((key) => once.claim('bulk', key, 600)));
      expect(won.every(Boolean)).toBe(true);
    }
    expect(asked.claims).toBe(10_001);
    expect(await once.claim('bulk', 'k-10000', 600)).toBe(false);
    expect(asked.claims).toBe(10_001);
    expect(await once.claim('bulk', 'k-0', 600)).toBe(false);
    expect(asked.claims).toBe(10_002);
  });
});
