import { type RawBuilder, sql } from 'kysely';
import type { Clock } from '../../ports/clock.js';
import type { Db, Store, Tx } from '../../ports/store.js';
import type { ReadGroupOptions, StreamEntry, StreamPort } from '../../ports/stream.js';
import { inChunks } from '../../support/in-chunks.js';

interface EntryId {
  ms: number;
  seq: number;
}

interface QueuedAppend {
  fields: Record<string, string>;
  maxLen: number;
  resolve(id: string): void;
  reject(error: unknown): void;
}

interface Appender {
  queue: QueuedAppend[];
  scheduled: boolean;
  flushing: boolean;
  /** Starts at infinity, so each process trims on its first batch: restarts cannot dodge it. */
  appendsSinceTrim: number;
}

/**
 * Trimming costs a cutoff lookup and a range delete: amortize it, like Redis's MAXLEN ~,
 * which also trims whole nodes. A stream stays within about a tenth over its limit.
 */
const trimEveryAtLeast = 100;
const trimEvery = (maxLen: number) => Math.max(trimEveryAtLeast, Math.floor(maxLen / 10));
/** Entries go stale only after claimIdleMs; looking for them more often than this is waste. */
const reclaimLookEveryMs = 1000;
/** Blocked readers re-check this often for entries appended by other processes. */
const pollMs = 200;
/** Caps one transaction on both dialects. */
const maxBatch = 1000;

export function createSqlStream(store: Store, clock: Clock): StreamPort {
  const appenders = new Map<string, Appender>();
  const sleepers = new Map<string, Set<() => void>>();
  /** Per stream and group: when this instance last looked for entries gone stale. */
  const lastReclaimLook = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    work.then(
      () => inFlight.delete(work),
      () => inFlight.delete(work),
    );
    return work;
  }

  function appenderFor(stream: string): Appender {
    let appender = appenders.get(stream);
    if (!appender) {
      appender = {
        queue: [],
        scheduled: false,
        flushing: false,
        appendsSinceTrim: Number.POSITIVE_INFINITY,
      };
      appenders.set(stream, appender);
    }
    return appender;
  }

  // Group commit: every append queued before the next macrotask shares one transaction, and
  // appends arriving while it commits form the next batch.
  function schedule(stream: string, appender: Appender) {
    if (appender.scheduled || appender.flushing) return;
    appender.scheduled = true;
    setImmediate(() => {
      appender.scheduled = false;
      void flush(stream, appender);
    });
  }

  async function flush(stream: string, appender: Appender) {
    const batch = appender.queue.splice(0, maxBatch);
    if (batch.length === 0) return;
    appender.flushing = true;
    try {
      const { ids, trimmed } = await track(commitBatch(stream, batch, appender));
      appender.appendsSinceTrim = trimmed ? 0 : appender.appendsSinceTrim + batch.length;
      for (const [i, append] of batch.entries()) append.resolve(ids[i]!);
      wake(stream);
    } catch (error) {
      for (const append of batch) append.reject(error);
    } finally {
      appender.flushing = false;
      if (appender.queue.length > 0) schedule(stream, appender);
    }
  }

  function commitBatch(stream: string, batch: QueuedAppend[], appender: Appender) {
    return store.withLock(`stream:${stream}`, async (tx) => {
      // The newest entry is never trimmed, so it always carries the stream's last id.
      let last: EntryId = (await newest(tx, stream)) ?? { ms: 0, seq: 0 };
      const now = Math.floor(clock.now());
      const rows = batch.map((append) => {
        last = nextId(last, now);
        return { stream, ms: last.ms, seq: last.seq, fields: JSON.stringify(append.fields) };
      });
      for (const chunk of inChunks(rows))
        await tx.insertInto('stream_entries').values(chunk).execute();
      // As if applied one by one: the latest append's limit is the one left standing.
      const maxLen = batch[batch.length - 1]!.maxLen;
      const trimmed = appender.appendsSinceTrim + batch.length >= trimEvery(maxLen);
      if (trimmed) await trim(tx, stream, maxLen);
      return { ids: rows.map(formatId), trimmed };
    });
  }

  function wake(stream: string) {
    for (const sleeper of [...(sleepers.get(stream) ?? [])]) sleeper();
  }

  /** Resolves after `ms`, or earlier when this instance appends to `stream` or closes. */
  function nap(stream: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = sleepers.get(stream);
      if (!set) {
        set = new Set();
        sleepers.set(stream, set);
      }
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && sleepers.get(stream) === set) sleepers.delete(stream);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  /** Lock-free look first, so idle blocked readers do not take SQLite's write lock per poll. */
  async function anythingToDeliver(stream: string, group: string, claimIdleMs: number) {
    const cursor = await groupCursor(store.db, stream, group);
    if (!cursor) return true; // let the locked read report the missing group
    const fresh = await store.db
      .selectFrom('stream_entries')
      .select('ms')
      .where('stream', '=', stream)
      .where(compareId('stream_entries', '>', cursor))
      .limit(1)
      .executeTakeFirst();
    if (fresh) return true;
    const stale = await store.db
      .selectFrom('stream_pending')
      .select('ms')
      .where('stream', '=', stream)
      .where('group_name', '=', group)
      .where('delivered_at', '<=', Math.floor(clock.now()) - claimIdleMs)
      .limit(1)
      .executeTakeFirst();
    return stale !== undefined;
  }

  // Per group, not per stream: appenders keep going while consumers claim. Safe because ids
  // are assigned under the stream lock, so committed entries always form a prefix of the ids.
  function deliver(stream: string, group: string, consumer: string, options: ReadGroupOptions) {
    return store.withLock(`stream:${stream}:group:${group}`, async (tx) => {
      const cursor = await groupCursor(tx, stream, group);
      if (!cursor) throw new Error(`NOGROUP: stream "${stream}" has no consumer group "${group}"`);
      const now = Math.floor(clock.now());
      const count = Math.max(1, Math.floor(options.count));
      const groupKey = `${stream}\u0000${group}`;
      const sinceLook = now - (lastReclaimLook.get(groupKey) ?? Number.NEGATIVE_INFINITY);
      if (sinceLook >= Math.min(reclaimLookEveryMs, options.claimIdleMs)) {
        const reclaimed = await reclaimStale(tx, stream, group, consumer, now, count, options);
        // A full batch may leave more stale entries behind: look again on the next read.
        if (reclaimed.length < count) lastReclaimLook.set(groupKey, now);
        else lastReclaimLook.delete(groupKey);
        if (reclaimed.length > 0) return reclaimed;
      }

      const fresh = await tx
        .selectFrom('stream_entries')
        .select(['ms', 'seq', 'fields'])
        .where('stream', '=', stream)
        .where(compareId('stream_entries', '>', cursor))
        .orderBy('ms')
        .orderBy('seq')
        .limit(count)
        .execute();
      const newestFresh = fresh[fresh.length - 1];
      if (!newestFresh) return [];
      await tx
        .updateTable('stream_groups')
        .set({ last_ms: newestFresh.ms, last_seq: newestFresh.seq })
        .where('stream', '=', stream)
        .where('group_name', '=', group)
        .execute();
      const pending = fresh.map((row) => ({
        stream,
        group_name: group,
        ms: row.ms,
        seq: row.seq,
        consumer,
        delivered_at: now,
        deliveries: 1,
      }));
      for (const chunk of inChunks(pending)) {
        await tx
          .insertInto('stream_pending')
          .values(chunk)
          .onConflict((oc) => oc.columns(['stream', 'group_name', 'ms', 'seq']).doNothing())
          .execute();
      }
      return fresh.map(toEntry);
    });
  }

  async function reclaimStale(
    tx: Tx,
    stream: string,
    group: string,
    consumer: string,
    now: number,
    count: number,
    options: ReadGroupOptions,
  ): Promise<StreamEntry[]> {
    const stale = await tx
      .selectFrom('stream_pending')
      .leftJoin('stream_entries', (join) =>
        join
          .onRef('stream_entries.stream', '=', 'stream_pending.stream')
          .onRef('stream_entries.ms', '=', 'stream_pending.ms')
          .onRef('stream_entries.seq', '=', 'stream_pending.seq'),
      )
      .select(['stream_pending.ms', 'stream_pending.seq', 'stream_entries.fields'])
      .where('stream_pending.stream', '=', stream)
      .where('stream_pending.group_name', '=', group)
      .where('stream_pending.delivered_at', '<=', now - options.claimIdleMs)
      .orderBy('stream_pending.ms')
      .orderBy('stream_pending.seq')
      .limit(count)
      .execute();
    if (stale.length === 0) return [];
    // Trimmed away while pending: nothing left to deliver, so forget them (as XAUTOCLAIM does).
    const gone = stale.filter((row) => row.fields === null);
    for (const chunk of inChunks(gone)) {
      await tx
        .deleteFrom('stream_pending')
        .where('stream', '=', stream)
        .where('group_name', '=', group)
        .where((eb) => eb.or(chunk.map((id) => eb.and({ ms: id.ms, seq: id.seq }))))
        .execute();
    }
    const alive = stale.flatMap((row) =>
      row.fields === null ? [] : [{ ms: row.ms, seq: row.seq, fields: row.fields }],
    );
    for (const chunk of inChunks(alive)) {
      await tx
        .updateTable('stream_pending')
        .set((eb) => ({ consumer, delivered_at: now, deliveries: eb('deliveries', '+', 1) }))
        .where('stream', '=', stream)
        .where('group_name', '=', group)
        .where((eb) => eb.or(chunk.map((id) => eb.and({ ms: id.ms, seq: id.seq }))))
        .execute();
    }
    return alive.map(toEntry);
  }

  function assertOpen() {
    if (closed) throw new Error('Stream is closed: no more appends or group reads');
  }

  return {
    append(stream, fields, maxLen) {
      if (closed) return Promise.reject(new Error('Stream is closed: cannot append'));
      // Redis refuses an entry without fields; refusing here too keeps the adapters alike.
      if (Object.keys(fields).length === 0) {
        return Promise.reject(new Error('A stream entry needs at least one field'));
      }
      return new Promise<string>((resolve, reject) => {
        const appender = appenderFor(stream);
        appender.queue.push({ fields, maxLen, resolve, reject });
        schedule(stream, appender);
      });
    },

    async range(stream, options) {
      const newestFirst = options.newestFirst === true;
      const direction = newestFirst ? 'desc' : 'asc';
      let query = store.db
        .selectFrom('stream_entries')
        .select(['ms', 'seq', 'fields'])
        .where('stream', '=', stream);
      if (options.from !== undefined) {
        query = query.where(
          compareId('stream_entries', newestFirst ? '<' : '>', parseId(options.from)),
        );
      }
      const rows = await query
        .orderBy('ms', direction)
        .orderBy('seq', direction)
        .limit(Math.max(0, Math.floor(options.limit)))
        .execute();
      return rows.map(toEntry);
    },

    async length(stream) {
      const row = await store.db
        .selectFrom('stream_entries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('stream', '=', stream)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async ensureGroup(stream, group) {
      await store.db
        .insertInto('stream_groups')
        .values({ stream, group_name: group, last_ms: 0, last_seq: 0 })
        .onConflict((oc) => oc.columns(['stream', 'group_name']).doNothing())
        .execute();
    },

    async readGroup(stream, group, consumer, options) {
      assertOpen();
      const deadline = Date.now() + Math.max(0, options.blockMs);
      for (;;) {
        if (await track(anythingToDeliver(stream, group, options.claimIdleMs))) {
          const entries = await track(deliver(stream, group, consumer, options));
          if (entries.length > 0) return entries;
        }
        // Closing ends the wait early, like a timeout: the caller sees an empty read.
        const remaining = deadline - Date.now();
        if (remaining <= 0 || closed) return [];
        await nap(stream, Math.min(pollMs, remaining));
        if (closed) return [];
      }
    },

    async ack(stream, group, ids) {
      const parsed = ids.map(parseId);
      for (const chunk of inChunks(parsed)) {
        await store.db
          .deleteFrom('stream_pending')
          .where('stream', '=', stream)
          .where('group_name', '=', group)
          .where((eb) => eb.or(chunk.map((id) => eb.and({ ms: id.ms, seq: id.seq }))))
          .execute();
      }
    },

    /**
     * Blocked readers resolve with [] at once; appends already accepted are committed before
     * this resolves, later appends and group reads reject. The store stays open (caller-owned).
     */
    async close() {
      closed = true;
      for (const stream of [...sleepers.keys()]) wake(stream);
      // Queued batches start on the next macrotask; loop until nothing is queued or running.
      for (;;) {
        const queued = [...appenders.values()].some((a) => a.queue.length > 0);
        if (inFlight.size === 0 && !queued) return;
        if (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        else await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** Like Redis: the clock's ms when it moved forward, else the last ms with the next seq. */
function nextId(last: EntryId, now: number): EntryId {
  return now > last.ms ? { ms: now, seq: 0 } : { ms: last.ms, seq: last.seq + 1 };
}

function formatId(id: EntryId): string {
  return `${id.ms}-${id.seq}`;
}

function parseId(id: string): EntryId {
  const match = /^(\d+)(?:-(\d+))?$/.exec(id);
  if (!match) throw new Error(`Invalid stream id "${id}": expected <ms>-<seq>`);
  return { ms: Number(match[1]), seq: Number(match[2] ?? 0) };
}

function toEntry(row: { ms: number; seq: number; fields: string }): StreamEntry {
  return { id: formatId(row), fields: JSON.parse(row.fields) as Record<string, string> };
}

/**
 * `(ms, seq) <op> id`, spelled so both dialects can range-scan the (stream, ms, seq) key:
 * the leading `ms` bound narrows the index range, the OR settles ties within one ms.
 */
function compareId(
  table: 'stream_entries' | 'stream_pending',
  op: '<' | '<=' | '>',
  id: EntryId,
): RawBuilder<boolean> {
  const ms = sql.ref(`${table}.ms`);
  const seq = sql.ref(`${table}.seq`);
  const strict = sql.raw(op.startsWith('<') ? '<' : '>');
  const wide = sql.raw(op.startsWith('<') ? '<=' : '>=');
  return sql<boolean>`(${ms} ${wide} ${id.ms} and (${ms} ${strict} ${id.ms} or ${seq} ${sql.raw(op)} ${id.seq}))`;
}

function newest(db: Db | Tx, stream: string) {
  return db
    .selectFrom('stream_entries')
    .select(['ms', 'seq'])
    .where('stream', '=', stream)
    .orderBy('ms', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

async function groupCursor(db: Db | Tx, stream: string, group: string) {
  const row = await db
    .selectFrom('stream_groups')
    .select(['last_ms', 'last_seq'])
    .where('stream', '=', stream)
    .where('group_name', '=', group)
    .executeTakeFirst();
  return row ? { ms: row.last_ms, seq: row.last_seq } : undefined;
}

/** Keeps the newest `maxLen` entries (at least one, which carries the last id). */
async function trim(tx: Tx, stream: string, maxLen: number) {
  const keep = Math.max(1, Math.floor(maxLen));
  const cutoff = await tx
    .selectFrom('stream_entries')
    .select(['ms', 'seq'])
    .where('stream', '=', stream)
    .orderBy('ms', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (!cutoff) return;
  await tx
    .deleteFrom('stream_entries')
    .where('stream', '=', stream)
    .where(compareId('stream_entries', '<=', cutoff))
    .execute();
  await tx
    .deleteFrom('stream_pending')
    .where('stream', '=', stream)
    .where(compareId('stream_pending', '<=', cutoff))
    .execute();
}
