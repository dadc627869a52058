import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rememberingOnceKeys } from '../../src/adapters/memory/remembered-once-keys.js';
import { createRedisOnceKeys } from '../../src/adapters/redis/redis-once-keys.js';
import { createSqlOnceKeys } from '../../src/adapters/sql/sql-once-keys.js';
import type { Clock } from '../../src/ports/clock.js';
import type { OnceKeys } from '../../src/ports/once-keys.js';
import type { Store } from '../../src/ports/store.js';
import {
  makeRedis,
  makeStore,
  redisUrlForTests,
  type StoreKind,
  storeKinds,
} from '../helpers/backends.js';

interface OnceFixture {
  once: OnceKeys;
  /** Another instance on the same backend, as another replica would have. */
  peer(): OnceKeys;
  /** Lets `seconds` pass for the backend's notion of expiry. */
  advance(seconds: number): Promise<void>;
  cleanup(): Promise<void>;
}

interface OnceBackend {
  name: string;
  open(): Promise<OnceFixture>;
}

function sqlBackend(kind: StoreKind): OnceBackend {
  return {
    name: `sql once keys on ${kind}`,
    async open() {
      const { store, cleanup } = await makeStore(kind);
      let now = 1_700_000_000_000;
      const clock: Clock = { now: () => now };
      return {
        once: createSqlOnceKeys(store, clock),
        peer: () => createSqlOnceKeys(store, clock),
        async advance(seconds) {
          now += seconds * 1000;
        },
        cleanup,
      };
    },
  };
}

function redisBackend(url: string): OnceBackend {
  return {
    name: 'redis once keys',
    async open() {
      const { redis, prefix, cleanup } = await makeRedis();
      const others: Redis[] = [];
      return {
        once: createRedisOnceKeys(redis, prefix),
        peer() {
          const connection = new Redis(url, { enableAutoPipelining: true });
          others.push(connection);
          return createRedisOnceKeys(connection, prefix);
        },
        // Redis expires keys by its own clock: real time has to pass.
        advance: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
        async cleanup() {
          for (const connection of others) connection.disconnect();
          await cleanup();
        },
      };
    },
  };
}

/**
 * The keys as the service builds them: each replica remembers its own wins. Time passes on
 * both clocks, since the remembered claims lapse on both.
 */
function remembering(backend: OnceBackend): OnceBackend {
  return {
    name: `${backend.name}, remembering its wins`,
    async open() {
      const fixture = await backend.open();
      const clock: Clock = { now: () => Date.now() };
      let shift = 0;
      const shifted: Clock = { now: () => clock.now() + shift };
      return {
        once: rememberingOnceKeys(fixture.once, shifted),
        peer: () => rememberingOnceKeys(fixture.peer(), shifted),
        async advance(seconds) {
          shift += seconds * 1000;
          await fixture.advance(seconds);
          await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
        },
        cleanup: () => fixture.cleanup(),
      };
    },
  };
}

const redisUrl = redisUrlForTests();
const stores: OnceBackend[] = [
  ...storeKinds().map(sqlBackend),
  ...(redisUrl ? [redisBackend(redisUrl)] : []),
];
const backends: OnceBackend[] = [...stores, ...stores.map(remembering)];

describe.each(backends)('once keys contract: $name', (backend) => {
  let fixture: OnceFixture;
  let once: OnceKeys;

  beforeEach(async () => {
    fixture = await backend.open();
    once = fixture.once;
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  it('lets the first claim win and refuses the next', async () => {
    expect(await once.claim('webhook', 'delivery-1', 60)).toBe(true);
    expect(await once.claim('webhook', 'delivery-1', 60)).toBe(false);
    expect(await fixture.peer().claim('webhook', 'delivery-1', 60)).toBe(false);
  });

  it('keeps scopes and keys independent', async () => {
    expect(await once.claim('webhook', 'k', 60)).toBe(true);
    expect(await once.claim('nonce', 'k', 60)).toBe(true);
    expect(await once.claim('webhook', 'k2', 60)).toBe(true);
    expect(await once.claim('webhook', 'k', 60)).toBe(false);
    expect(await once.claim('nonce', 'k2', 60)).toBe(true);
  });

  it('gives exactly one of 100 concurrent claimers the key', async () => {
    const other = fixture.peer();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, n) => (n % 2 ? once : other).claim('race', 'one-key', 60)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('lets a key released by its winner be claimed again, by one claimer, on any connection', async () => {
    const other = fixture.peer();
    expect(await once.claim('errtracker-issue', 'ISSUE-1', 600)).toBe(true);
    expect(await once.claim('errtracker-issue', 'ISSUE-2', 600)).toBe(true);
    expect(await other.claim('errtracker-issue', 'ISSUE-1', 600)).toBe(false);
    await once.release('errtracker-issue', 'ISSUE-1');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        (n % 2 ? once : other).claim('errtracker-issue', 'ISSUE-1', 600),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    // Only that key: its neighbour stays claimed, and releasing an unclaimed key does nothing.
    expect(await once.claim('errtracker-issue', 'ISSUE-2', 600)).toBe(false);
    await once.release('errtracker-issue', 'never-claimed');
  });

  it('holds the key until the ttl has passed, then lets one claimer have it again', async () => {
    expect(await once.claim('webhook', 'delivery-1', 1)).toBe(true);
    await fixture.advance(0.4);
    expect(await once.claim('webhook', 'delivery-1', 1)).toBe(false);
    await fixture.advance(0.7);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => once.claim('webhook', 'delivery-1', 60)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await once.claim('webhook', 'delivery-1', 60)).toBe(false);
  });
});

describe.each(storeKinds())('sql once keys specifics on %s', (kind) => {
  let store: Store;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ store, cleanup } = await makeStore(kind));
  });

  afterEach(async () => {
    await cleanup();
  });

  it('sweeps expired rows now and then', async () => {
    let now = 1_700_000_000_000;
    const once = createSqlOnceKeys(store, { now: () => now });
    for (let n = 0; n < 5; n++) await once.claim('webhook', `old-${n}`, 1);
    now += 5 * 60_000;
    await once.claim('webhook', 'fresh', 60);
    const rows = await store.db.selectFrom('once_keys').select('key').execute();
    expect(rows.map((row) => row.key)).toEqual(['fresh']);
  });
});
