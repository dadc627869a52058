import type { Clock } from '../../ports/clock.js';
import type { Db, Store } from '../../ports/store.js';
import type { StreamPort } from '../../ports/stream.js';
import { builtOnce, insertBuiltOnce } from '../../support/built-once.js';
import { inChunks } from '../../support/in-chunks.js';
import { createGroupReads } from './sql-stream-groups.js';
import {
  compareId,
  type EntryId,
  formatId,
  groupBacklog,
  newest,
  nextId,
  parseId,
  toEntry,
  trim,
} from './sql-stream-rows.js';

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
/**
 * Blocked readers re-check this often for entries appended by other processes: on SQLite
 * nothing else tells them; on PostgreSQL the appending process notifies them, and the poll
 * is the safety net for a notification lost while the listening connection was down.
 */
const pollMs = (store: Store) => (store.wakeups ? 5_000 : 1_000);
/** The wake-up topic of appends; its payload is the stream's name. */
const WAKE_TOPIC = 'stream';
/** Caps one transaction on both dialects. */
const maxBatch = 1000;

const insertEntries = insertBuiltOnce('stream_entries', ['stream', 'ms', 'seq', 'fields']);

const deletePending = builtOnce(
  (db: Db, { stream, group, ids }: { stream: string; group: string; ids: readonly EntryId[] }) =>
    db
      .deleteFrom('stream_pending')
      .where('stream', '=', stream)
      .where('group_name', '=', group)
      .where((eb) => eb.or(ids.map((id) => eb.and({ ms: id.ms, seq: id.seq })))),
  ({ stream, group, ids }) => [stream, group, ...ids.flatMap((id) => [id.ms, id.seq])],
  ({ ids }) => ids.length,
);

export function createSqlStream(store: Store, clock: Clock): StreamPort {
  const appenders = new Map<string, Appender>();
  const sleepers = new Map<string, Set<() => void>>();
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;
  const { anythingToDeliver, deliver } = createGroupReads(store, clock);
  let listening: Promise<() => void> | undefined;
  /** From the first blocking read on: appends of other processes wake this one's readers. */
  function listen(): void {
    listening ??= store.wakeups?.listen(WAKE_TOPIC, (stream) => {
      if (stream !== undefined) wake(stream);
      else for (const name of [...sleepers.keys()]) wake(name);
    });
  }

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
      store.wakeups?.notify(WAKE_TOPIC, stream);
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
      for (const chunk of inChunks(rows)) await insertEntries(tx, chunk);
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
  function nap(stream: string, ms: number): Promise<'woken' | 'timed out'> {
    return new Promise((resolve) => {
      let set = sleepers.get(stream);
      if (!set) {
        set = new Set();
        sleepers.set(stream, set);
      }
      const end = (how: 'woken' | 'timed out') => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0 && sleepers.get(stream) === set) sleepers.delete(stream);
        resolve(how);
      };
      const done = () => end('woken');
      const timer = setTimeout(() => end('timed out'), ms);
      set.add(done);
    });
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
      if (options.blockMs > 0) listen();
      for (;;) {
        if (await track(anythingToDeliver(stream, group, options.claimIdleMs))) {
          const entries = await track(deliver(stream, group, consumer, options));
          if (entries.length > 0) return entries;
        }
        // Closing ends the wait early, like a timeout: the caller sees an empty read.
        const remaining = deadline - Date.now();
        if (remaining <= 0 || closed) return [];
        const napMs = Math.min(pollMs(store), remaining);
        const how = await nap(stream, napMs);
        if (closed) return [];
        // Slept to the deadline with nothing heard: the caller's next read looks at once, so
        // looking here too would only double an idle consumer's statements.
        if (how === 'timed out' && napMs === remaining) return [];
      }
    },

    async ack(stream, group, ids) {
      const parsed = ids.map(parseId);
      for (const chunk of inChunks(parsed)) {
        await deletePending(store.db, { stream, group, ids: chunk });
      }
    },

    backlog(stream, group) {
      return groupBacklog(store.db, stream, group);
    },

    /**
     * Blocked readers resolve with [] at once; appends already accepted are committed before
     * this resolves, later appends and group reads reject. The store stays open (caller-owned).
     */
    async close() {
      closed = true;
      void listening?.then((stop) => stop());
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
