import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import { createRedisStream } from '../../src/adapters/redis/redis-stream.js';
import { createSqlStream } from '../../src/adapters/sql/sql-stream.js';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { type Clock, systemClock } from '../../src/ports/clock.js';
import type { Store } from '../../src/ports/store.js';
import type { StreamEntry, StreamPort } from '../../src/ports/stream.js';
import {
  dropSchema,
  makeRedis,
  postgresUrlWithFreshSchema,
  redisUrlForTests,
  type StoreKind,
  storeKinds,
  tempDir,
  uniqueName,
} from '../helpers/backends.js';

/** Adapters on one suite's backend; each test uses stream names of its own. */
interface StreamFixture {
  stream: StreamPort;
  /** Another adapter instance on the same data, as a second replica would have. */
  peer(): Promise<StreamPort>;
  /** Closes the adapter and its backend connection, then opens both again on the same data. */
  reopen(): Promise<StreamPort>;
  close(): Promise<void>;
}

interface StreamBackend {
  name: string;
  /** An empty database or key space for one suite; `connect` once per test. */
  setUp(): Promise<{ connect(): Promise<StreamFixture>; tearDown(): Promise<void> }>;
}

/** Opens the same database again and again: a SQLite file, or a PostgreSQL schema. */
function sqlDatabase(kind: StoreKind): { open(): Promise<Store>; drop(): Promise<void> } {
  if (kind === 'sqlite') {
    const dir = tempDir();
    return {
      open: () => createSqliteStore(path.join(dir, 'app.db')),
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const { url, schema } = postgresUrlWithFreshSchema();
  const base = new URL(url);
  base.searchParams.delete('schema');
  return {
    open: () => createPostgresStore({ url: base.toString(), schema }),
    drop: () => dropSchema(schema),
  };
}

function sqlBackend(kind: StoreKind): StreamBackend {
  return {
    name: `sql stream on ${kind}`,
    async setUp() {
      const database = sqlDatabase(kind);
      // Migrates once, so each test's own connect is cheap.
      await (await database.open()).close();
      return {
        async connect() {
          let store = await database.open();
          let adapters = [createSqlStream(store, systemClock)];
          const closeAll = async () => {
            for (const adapter of adapters) await adapter.close();
            await store.close();
          };
          return {
            stream: adapters[0]!,
            async peer() {
              const adapter = createSqlStream(store, systemClock);
              adapters.push(adapter);
              return adapter;
            },
            async reopen() {
              await closeAll();
              store = await database.open();
              adapters = [createSqlStream(store, systemClock)];
              return adapters[0]!;
            },
            close: closeAll,
          };
        },
        tearDown: () => database.drop(),
      };
    },
  };
}

function redisBackend(url: string): StreamBackend {
  return {
    name: 'redis stream',
    async setUp() {
      const shared = await makeRedis();
      return {
        async connect() {
          const connections: Redis[] = [];
          let adapters = [createRedisStream(shared.redis, shared.prefix)];
          const adapterOnNewConnection = () => {
            const connection = new Redis(url, { enableAutoPipelining: true });
            connections.push(connection);
            const adapter = createRedisStream(connection, shared.prefix);
            adapters.push(adapter);
            return adapter;
          };
          return {
            stream: adapters[0]!,
            async peer() {
              return adapterOnNewConnection();
            },
            async reopen() {
              for (const adapter of adapters) await adapter.close();
              adapters = [];
              return adapterOnNewConnection();
            },
            async close() {
              for (const adapter of adapters) await adapter.close();
              for (const connection of connections) connection.disconnect();
            },
          };
        },
        tearDown: () => shared.cleanup(),
      };
    },
  };
}

const redisUrl = redisUrlForTests();
const backends: StreamBackend[] = [
  ...storeKinds().map(sqlBackend),
  ...(redisUrl ? [redisBackend(redisUrl)] : []),
];

const roomy = 100_000;
const noClaim = { claimIdleMs: 60_000, blockMs: 0 };

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parse(id: string): [number, number] {
  const [ms, seq] = id.split('-').map(Number);
  return [ms!, seq!];
}

function isBefore(a: string, b: string): boolean {
  const [aMs, aSeq] = parse(a);
  const [bMs, bSeq] = parse(b);
  return aMs < bMs || (aMs === bMs && aSeq < bSeq);
}

function expectStrictlyIncreasing(ids: string[]) {
  for (let i = 1; i < ids.length; i++) {
    if (!isBefore(ids[i - 1]!, ids[i]!)) {
      throw new Error(`ids out of order at ${i}: ${ids[i - 1]} then ${ids[i]}`);
    }
  }
}

function idsOf(entries: StreamEntry[]) {
  return entries.map((entry) => entry.id);
}

async function appendMany(stream: StreamPort, name: string, count: number, maxLen = roomy) {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push(await stream.append(name, { n: String(n) }, maxLen));
  return ids;
}

describe.each(backends)('stream contract: $name', (backend) => {
  let site: Awaited<ReturnType<StreamBackend['setUp']>>;
  let fixture: StreamFixture;
  let stream: StreamPort;
  let events: string;
  let other: string;

  beforeAll(async () => {
    site = await backend.setUp();
  });

  afterAll(async () => {
    await site.tearDown();
  });

  beforeEach(async () => {
    fixture = await site.connect();
    stream = fixture.stream;
    events = uniqueName(events);
    other = uniqueName(other);
  });

  afterEach(async () => {
    await fixture.close();
  });

  it('assigns <ms>-<seq> ids that strictly increase', async () => {
    const before = Date.now();
    const ids = await appendMany(stream, events, 20);
    for (const id of ids) expect(id).toMatch(/^\d+-\d+$/);
    expectStrictlyIncreasing(ids);
    expect(parse(ids[0]!)[0]).toBeGreaterThanOrEqual(before - 1000);
  });

  it('gives 500 concurrent appends 500 distinct ids, increasing in call order', async () => {
    const ids = await Promise.all(
      Array.from({ length: 500 }, (_, n) => stream.append(events, { n: String(n) }, roomy)),
    );
    expect(new Set(ids).size).toBe(500);
    expectStrictlyIncreasing(ids);
    const stored = await stream.range(events, { limit: 1000 });
    expect(idsOf(stored)).toEqual(ids);
    expect(stored.map((entry) => entry.fields.n)).toEqual(ids.map((_, n) => String(n)));
    expect(await stream.length(events)).toBe(500);
  });

  it('keeps ids unique and ordered when two replicas append at once', async () => {
    const other = await fixture.peer();
    const burst = (port: StreamPort, who: string) =>
      Promise.all(Array.from({ length: 200 }, () => port.append(events, { who }, roomy)));
    const [mine, theirs] = await Promise.all([burst(stream, 'a'), burst(other, 'b')]);
    const all = [...mine, ...theirs];
    expect(new Set(all).size).toBe(400);
    expectStrictlyIncreasing(mine);
    expectStrictlyIncreasing(theirs);
    const stored = idsOf(await stream.range(events, { limit: 1000 }));
    expectStrictlyIncreasing(stored);
    expect([...stored].sort()).toEqual([...all].sort());
  });

  it('round-trips fields exactly', async () => {
    const fields = {
      plain: 'value',
      empty: '',
      unicode: 'ünïcødé ✓ 日本',
      quotes: `"double" 'single' \\ back`,
      lines: 'one\ntwo\r\nthree\t',
      json: '{"nested":[1,2,3]}',
      number: '42',
    };
    const id = await stream.append(events, fields, roomy);
    const [entry] = await stream.range(events, { limit: 1 });
    expect(entry).toEqual({ id, fields });
  });

  it('rejects an entry without fields', async () => {
    await expect(stream.append(events, {}, roomy)).rejects.toThrow();
  });

  it('ranges in both directions with an exclusive from and a limit', async () => {
    const ids = await appendMany(stream, events, 10);
    const n = (entries: StreamEntry[]) => entries.map((entry) => entry.fields.n);

    expect(n(await stream.range(events, { limit: 3 }))).toEqual(['0', '1', '2']);
    expect(n(await stream.range(events, { from: ids[2], limit: 3 }))).toEqual(['3', '4', '5']);
    expect(n(await stream.range(events, { from: ids[7], limit: 10 }))).toEqual(['8', '9']);
    expect(await stream.range(events, { from: ids[9], limit: 10 })).toEqual([]);

    expect(n(await stream.range(events, { newestFirst: true, limit: 3 }))).toEqual(['9', '8', '7']);
    expect(n(await stream.range(events, { newestFirst: true, from: ids[7], limit: 3 }))).toEqual([
      '6',
      '5',
      '4',
    ]);
    expect(await stream.range(events, { newestFirst: true, from: ids[0], limit: 3 })).toEqual([]);
    expect(idsOf(await stream.range(events, { newestFirst: true, limit: 100 }))).toEqual(
      [...ids].reverse(),
    );
    expect(await stream.range(other, { limit: 10 })).toEqual([]);
  });

  it('counts entries per stream', async () => {
    expect(await stream.length(events)).toBe(0);
    await appendMany(stream, events, 7);
    await appendMany(stream, other, 2);
    expect(await stream.length(events)).toBe(7);
    expect(await stream.length(other)).toBe(2);
  });

  it('trims to about maxLen, keeping the newest entries', async () => {
    const maxLen = 50;
    const ids: string[] = [];
    for (let round = 0; round < 15; round++) {
      const batch = Array.from({ length: 10 }, () => stream.append(events, { x: '1' }, maxLen));
      ids.push(...(await Promise.all(batch)));
    }
    const length = await stream.length(events);
    expect(length).toBeGreaterThanOrEqual(maxLen);
    expect(length).toBeLessThanOrEqual(maxLen + 200);
    const kept = idsOf(await stream.range(events, { limit: 1000 }));
    expect(kept).toEqual(ids.slice(-length));
  });

  it('never lets the stream grow without bound', async () => {
    const maxLen = 20;
    for (let round = 0; round < 20; round++) {
      const batch = Array.from({ length: 50 }, () => stream.append(events, { x: '1' }, maxLen));
      await Promise.all(batch);
      expect(await stream.length(events)).toBeLessThanOrEqual(maxLen + 200);
    }
  });

  it('keeps a long stream within about a tenth over its limit', async () => {
    const maxLen = 2000;
    for (let round = 0; round < 30; round++) {
      const batch = Array.from({ length: 100 }, () => stream.append(events, { x: '1' }, maxLen));
      await Promise.all(batch);
      expect(await stream.length(events)).toBeLessThanOrEqual(maxLen + maxLen / 10 + 100);
    }
    expect(await stream.length(events)).toBeGreaterThanOrEqual(maxLen);
  });

  it('never gives two concurrent consumers the same new entry', async () => {
    const ids = await appendMany(stream, events, 60);
    await stream.ensureGroup(events, 'workers');
    const consume = async (consumer: string) => {
      const got: string[] = [];
      for (;;) {
        const entries = await stream.readGroup(events, 'workers', consumer, {
          count: 4,
          ...noClaim,
        });
        got.push(...idsOf(entries));
        // The cap keeps a broken adapter that re-delivers forever from hanging the test.
        if (entries.length === 0 || got.length > ids.length) return got;
        await stream.ack(events, 'workers', idsOf(entries));
      }
    };
    const [a, b] = await Promise.all([consume('a'), consume('b')]);
    const taken = new Set(a);
    expect(b.filter((id) => taken.has(id))).toEqual([]);
    expect([...a, ...b].sort()).toEqual([...ids].sort());
    expectStrictlyIncreasing(a);
    expectStrictlyIncreasing(b);
  });

  it('re-delivers unacknowledged entries to another consumer after claimIdleMs', async () => {
    const ids = await appendMany(stream, events, 3);
    await stream.ensureGroup(events, 'workers');
    const first = await stream.readGroup(events, 'workers', 'a', { count: 2, ...noClaim });
    expect(idsOf(first)).toEqual(ids.slice(0, 2));

    // Not idle long enough yet: b gets the next new entry instead.
    const fresh = await stream.readGroup(events, 'workers', 'b', { count: 2, ...noClaim });
    expect(idsOf(fresh)).toEqual([ids[2]]);
    await stream.ack(events, 'workers', idsOf(fresh));

    await sleep(150);
    const claimed = await stream.readGroup(events, 'workers', 'b', {
      count: 10,
      blockMs: 0,
      claimIdleMs: 100,
    });
    // Only a re-delivery says so: the consumer looks up how those were handled, not others.
    expect(first.every((entry) => entry.redelivered === undefined)).toBe(true);
    expect(claimed).toEqual(first.map((entry) => ({ ...entry, redelivered: true })));
    // The claim restarts the idle time, so nobody takes them straight back. Asked through
    // another instance: this one would not look again so soon in any case.
    const peer = await fixture.peer();
    const again = await peer.readGroup(events, 'workers', 'a', {
      count: 10,
      blockMs: 0,
      claimIdleMs: 100,
    });
    expect(again).toEqual([]);
  });

  it('stops re-delivering entries once acknowledged', async () => {
    const ids = await appendMany(stream, events, 3);
    await stream.ensureGroup(events, 'workers');
    await stream.readGroup(events, 'workers', 'a', { count: 3, ...noClaim });
    await stream.ack(events, 'workers', [ids[0]!, ids[2]!]);
    await stream.ack(events, 'workers', []);
    await sleep(120);
    const stale = { count: 10, blockMs: 0, claimIdleMs: 100 };
    expect(idsOf(await stream.readGroup(events, 'workers', 'b', stale))).toEqual([ids[1]]);
    await stream.ack(events, 'workers', [ids[1]!]);
    await sleep(120);
    expect(await stream.readGroup(events, 'workers', 'b', stale)).toEqual([]);
  });

  it('keeps every entry a group has not acknowledged when appending past maxLen', async () => {
    await stream.ensureGroup(events, 'workers');
    const early = await appendMany(stream, events, 5);
    const delivered = await stream.readGroup(events, 'workers', 'a', { count: 3, ...noClaim });
    await stream.ack(events, 'workers', [delivered[1]!.id]);
    const later: string[] = [];
    for (let round = 0; round < 6; round++) {
      const batch = Array.from({ length: 50 }, () => stream.append(events, { x: '1' }, 10));
      later.push(...(await Promise.all(batch)));
    }
    // Trimming cuts a prefix: it stops below the oldest pending entry (delivered, not
    // acknowledged), so every entry after it stays too, acknowledged or not.
    const kept = idsOf(await stream.range(events, { limit: 1000 }));
    expect(kept).toEqual([...early, ...later]);
    expect(await stream.backlog(events, 'workers')).toEqual({
      count: 2 + 2 + later.length,
      oldestMs: parse(early[0]!)[0],
    });
    const claimed = await stream.readGroup(events, 'workers', 'b', {
      count: 10,
      blockMs: 0,
      claimIdleMs: 0,
    });
    expect(idsOf(claimed)).toEqual([early[0], early[2]]);
  });

  it('trims entries once every group has acknowledged them, down to about maxLen', async () => {
    await stream.ensureGroup(events, 'fast');
    await stream.ensureGroup(events, 'slow');
    const ids = await appendMany(stream, events, 300);
    const drain = async (group: string, upTo: number) => {
      const entries = await stream.readGroup(events, group, 'c', { count: upTo, ...noClaim });
      await stream.ack(events, group, idsOf(entries));
    };
    await drain('fast', 300);
    await drain('slow', 100);
    const more = await Promise.all(
      Array.from({ length: 150 }, () => stream.append(events, { x: '1' }, 10)),
    );
    // The slow group still owes everything after its first 100.
    const kept = idsOf(await stream.range(events, { limit: 1000 }));
    expect(kept).toEqual([...ids.slice(100), ...more]);
    expect((await stream.backlog(events, 'slow')).count).toBe(200 + more.length);
    expect(await stream.backlog(events, 'fast')).toEqual({
      count: more.length,
      oldestMs: parse(more[0]!)[0],
    });

    await drain('slow', 1000);
    await drain('fast', 1000);
    expect(await stream.backlog(events, 'slow')).toEqual({ count: 0, oldestMs: null });
    await Promise.all(Array.from({ length: 150 }, () => stream.append(events, { x: '1' }, 10)));
    const length = await stream.length(events);
    expect(length).toBeGreaterThanOrEqual(10);
    expect(length).toBeLessThanOrEqual(10 + 200);
  });

  it('counts a backlog of never delivered and pending entries, oldest first', async () => {
    expect(await stream.backlog(events, 'workers')).toEqual({ count: 0, oldestMs: null });
    await stream.ensureGroup(events, 'workers');
    expect(await stream.backlog(events, 'workers')).toEqual({ count: 0, oldestMs: null });
    const ids = await appendMany(stream, events, 4);
    expect(await stream.backlog(events, 'workers')).toEqual({
      count: 4,
      oldestMs: parse(ids[0]!)[0],
    });
    const first = await stream.readGroup(events, 'workers', 'a', { count: 2, ...noClaim });
    expect((await stream.backlog(events, 'workers')).count).toBe(4);
    await stream.ack(events, 'workers', [first[0]!.id]);
    expect(await stream.backlog(events, 'workers')).toEqual({
      count: 3,
      oldestMs: parse(ids[1]!)[0],
    });
    await stream.ack(events, 'workers', [ids[1]!]);
    expect(await stream.backlog(events, 'workers')).toEqual({
      count: 2,
      oldestMs: parse(ids[2]!)[0],
    });
    const peer = await fixture.peer();
    expect((await peer.backlog(events, 'workers')).count).toBe(2);
    expect((await stream.backlog(events, 'nobody')).count).toBe(0);
  });

  it('makes ensureGroup idempotent without moving an existing group', async () => {
    const ids = await appendMany(stream, events, 3);
    await Promise.all(Array.from({ length: 5 }, () => stream.ensureGroup(events, 'workers')));
    const first = await stream.readGroup(events, 'workers', 'a', { count: 2, ...noClaim });
    expect(idsOf(first)).toEqual(ids.slice(0, 2));
    await stream.ensureGroup(events, 'workers');
    const rest = await stream.readGroup(events, 'workers', 'a', { count: 10, ...noClaim });
    expect(idsOf(rest)).toEqual([ids[2]]);
  });

  it('delivers entries that existed before the group was created', async () => {
    const ids = await appendMany(stream, events, 5);
    await stream.ensureGroup(events, 'late');
    const entries = await stream.readGroup(events, 'late', 'a', { count: 10, ...noClaim });
    expect(idsOf(entries)).toEqual(ids);
    expect(entries.map((entry) => entry.fields.n)).toEqual(['0', '1', '2', '3', '4']);
  });

  it('lets a group be created before its stream has entries', async () => {
    await stream.ensureGroup(events, 'early');
    expect(await stream.readGroup(events, 'early', 'a', { count: 10, ...noClaim })).toEqual([]);
    const id = await stream.append(events, { n: '0' }, roomy);
    const entries = await stream.readGroup(events, 'early', 'a', { count: 10, ...noClaim });
    expect(idsOf(entries)).toEqual([id]);
  });

  it('rejects a group read for a group that does not exist', async () => {
    await stream.append(events, { n: '0' }, roomy);
    await expect(
      stream.readGroup(events, 'missing', 'a', { count: 1, ...noClaim }),
    ).rejects.toThrow();
  });

  it('wakes a blocked read as soon as an entry is appended', async () => {
    await stream.ensureGroup(events, 'workers');
    const started = Date.now();
    const read = stream.readGroup(events, 'workers', 'a', {
      count: 10,
      blockMs: 5000,
      claimIdleMs: 60_000,
    });
    await sleep(100);
    const id = await stream.append(events, { n: '0' }, roomy);
    const entries = await read;
    expect(idsOf(entries)).toEqual([id]);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('wakes a blocked read when another replica appends', async () => {
    const other = await fixture.peer();
    await stream.ensureGroup(events, 'workers');
    const started = Date.now();
    const read = stream.readGroup(events, 'workers', 'a', {
      count: 10,
      blockMs: 5000,
      claimIdleMs: 60_000,
    });
    await sleep(100);
    const id = await other.append(events, { n: '0' }, roomy);
    expect(idsOf(await read)).toEqual([id]);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('returns [] after about blockMs when nothing arrives', async () => {
    await stream.ensureGroup(events, 'workers');
    const started = Date.now();
    const entries = await stream.readGroup(events, 'workers', 'a', {
      count: 10,
      blockMs: 300,
      claimIdleMs: 60_000,
    });
    const waited = Date.now() - started;
    expect(entries).toEqual([]);
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(1500);
  });

  it('keeps entries, groups and pending entries across a reopen', async () => {
    const ids = await appendMany(stream, events, 5);
    await stream.ensureGroup(events, 'workers');
    await stream.readGroup(events, 'workers', 'a', { count: 2, ...noClaim });

    const reopened = await fixture.reopen();
    expect(idsOf(await reopened.range(events, { limit: 10 }))).toEqual(ids);
    expect(await reopened.length(events)).toBe(5);
    const stale = await reopened.readGroup(events, 'workers', 'b', {
      count: 10,
      blockMs: 0,
      claimIdleMs: 0,
    });
    expect(idsOf(stale)).toEqual(ids.slice(0, 2));
    const fresh = await reopened.readGroup(events, 'workers', 'b', { count: 10, ...noClaim });
    expect(idsOf(fresh)).toEqual(ids.slice(2));
    const next = await reopened.append(events, { n: '5' }, roomy);
    expect(isBefore(ids[4]!, next)).toBe(true);
  });

  it('on close, ends blocked reads with [] and refuses later appends', async () => {
    await stream.ensureGroup(events, 'workers');
    const started = Date.now();
    const read = stream.readGroup(events, 'workers', 'a', {
      count: 10,
      blockMs: 10_000,
      claimIdleMs: 60_000,
    });
    await sleep(100);
    await stream.close();
    expect(await read).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(stream.append(events, { n: '0' }, roomy)).rejects.toThrow(/closed/);
    await expect(
      stream.readGroup(events, 'workers', 'a', { count: 1, ...noClaim }),
    ).rejects.toThrow(/closed/);
  });

  it('on close, commits appends it already accepted', async () => {
    const pending = Array.from({ length: 20 }, (_, n) =>
      stream.append(events, { n: String(n) }, roomy),
    );
    await stream.close();
    const ids = await Promise.all(pending);
    const reader = await fixture.peer();
    expect(idsOf(await reader.range(events, { limit: 100 }))).toEqual(ids);
  });
});

/** A clock the test moves by hand. */
function manualClock(start: number): Clock & { set(ms: number): void } {
  let now = start;
  return { now: () => now, set: (ms) => (now = ms) };
}

describe.each(storeKinds())('sql stream specifics on %s', (kind) => {
  let database: ReturnType<typeof sqlDatabase>;
  let store: Store;

  beforeEach(async () => {
    database = sqlDatabase(kind);
    store = await database.open();
  });

  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  it('keeps ids increasing when the clock stalls or goes backwards', async () => {
    const clock = manualClock(1_000);
    const stream = createSqlStream(store, clock);
    expect(await stream.append('events', { n: '0' }, roomy)).toBe('1000-0');
    expect(await stream.append('events', { n: '1' }, roomy)).toBe('1000-1');
    clock.set(500);
    expect(await stream.append('events', { n: '2' }, roomy)).toBe('1000-2');
    const burst = await Promise.all(
      Array.from({ length: 3 }, () => stream.append('events', { n: 'x' }, roomy)),
    );
    expect(burst).toEqual(['1000-3', '1000-4', '1000-5']);
    clock.set(2_000);
    expect(await stream.append('events', { n: '3' }, roomy)).toBe('2000-0');
    // A new instance (a restart) continues from the stored ids, not from its own clock.
    const restarted = createSqlStream(store, manualClock(10));
    expect(await restarted.append('events', { n: '4' }, roomy)).toBe('2000-1');
    await stream.close();
    await restarted.close();
  });

  it('batches appends of one tick into few transactions', async () => {
    const stream = createSqlStream(store, systemClock);
    let transactions = 0;
    const counting: Store = {
      ...store,
      withLock: (name, work) => {
        transactions++;
        return store.withLock(name, work);
      },
    };
    const batched = createSqlStream(counting, systemClock);
    await Promise.all(
      Array.from({ length: 300 }, () => batched.append('events', { x: '1' }, roomy)),
    );
    expect(transactions).toBeLessThanOrEqual(2);
    expect(await stream.length('events')).toBe(300);
    await batched.close();
    await stream.close();
  });

  it('trims on the first batch after a restart, and then every hundred appends or so', async () => {
    const first = createSqlStream(store, systemClock);
    await appendMany(first, 'events', 150);
    await first.close();
    const restarted = createSqlStream(store, systemClock);
    await restarted.append('events', { x: '1' }, 10);
    expect(await restarted.length('events')).toBe(10);
    for (let round = 0; round < 25; round++) {
      await Promise.all(
        Array.from({ length: 10 }, () => restarted.append('events', { x: '1' }, 10)),
      );
      expect(await restarted.length('events')).toBeLessThanOrEqual(10 + 100 + 10);
    }
    await restarted.close();
  });

  it('wakes its own blocked readers on append instead of waiting for the next poll', async () => {
    const stream = createSqlStream(store, systemClock);
    await stream.ensureGroup('events', 'workers');
    const latencies: number[] = [];
    // The best of three, so one slow moment on a busy machine does not decide it.
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = stream.readGroup('events', 'workers', 'a', {
        count: 10,
        blockMs: 5000,
        claimIdleMs: 60_000,
      });
      // Midway between two polls (every 200 ms): only the in-process wake-up answers sooner.
      await sleep(290);
      const id = await stream.append('events', { n: String(attempt) }, roomy);
      const appendedAt = Date.now();
      expect(idsOf(await read)).toEqual([id]);
      latencies.push(Date.now() - appendedAt);
    }
    expect(Math.min(...latencies)).toBeLessThan(70);
    await stream.close();
  });

  it('never deletes pending rows when trimming', async () => {
    const stream = createSqlStream(store, systemClock);
    await appendMany(stream, 'events', 5);
    await stream.ensureGroup('events', 'workers');
    await stream.readGroup('events', 'workers', 'a', { count: 5, ...noClaim });
    await Promise.all(Array.from({ length: 200 }, () => stream.append('events', { x: '1' }, 10)));
    const pending = await store.db.selectFrom('stream_pending').selectAll().execute();
    expect(pending).toHaveLength(5);
    expect(await stream.length('events')).toBe(205);
    await stream.close();
  });
});
