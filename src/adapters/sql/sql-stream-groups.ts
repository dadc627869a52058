import type { Clock } from '../../ports/clock.js';
import type { Db, Store, Tx } from '../../ports/store.js';
import type { ReadGroupOptions, StreamEntry } from '../../ports/stream.js';
import { builtOnce, insertBuiltOnce } from '../../support/built-once.js';
import { inChunks } from '../../support/in-chunks.js';
import { createReclaimLooks } from '../../support/reclaim-looks.js';
import { compareId, type EntryId, groupCursor, toEntry } from './sql-stream-rows.js';

const deliverable = builtOnce(
  (
    db: Db,
    { stream, group, staleBefore }: { stream: string; group: string; staleBefore: number },
  ) =>
    db
      .selectFrom('stream_groups as g')
      .where('g.stream', '=', stream)
      .where('g.group_name', '=', group)
      .select((eb) =>
        eb
          .or([
            eb.exists(
              eb
                .selectFrom('stream_entries as e')
                .select('e.ms')
                .where('e.stream', '=', stream)
                // compareId's shape: a range of the (stream, ms, seq) index, then the tie.
                .where('e.ms', '>=', (inner) => inner.ref('g.last_ms'))
                .where((inner) =>
                  inner.or([
                    inner('e.ms', '>', inner.ref('g.last_ms')),
                    inner('e.seq', '>', inner.ref('g.last_seq')),
                  ]),
                ),
            ),
            eb.exists(
              eb
                .selectFrom('stream_pending as p')
                .select('p.ms')
                .where('p.stream', '=', stream)
                .where('p.group_name', '=', group)
                .where('p.delivered_at', '<=', staleBefore),
            ),
          ])
          .as('any'),
      ),
  ({ stream, group, staleBefore }) => [stream, stream, group, staleBefore, stream, group],
);

const insertPending = insertBuiltOnce(
  'stream_pending',
  ['stream', 'group_name', 'ms', 'seq', 'consumer', 'delivered_at', 'deliveries'],
  (insert) =>
    insert.onConflict((oc) => oc.columns(['stream', 'group_name', 'ms', 'seq']).doNothing()),
);

const entriesAfter = builtOnce(
  (db: Db, { stream, cursor, count }: { stream: string; cursor: EntryId; count: number }) =>
    db
      .selectFrom('stream_entries')
      .select(['ms', 'seq', 'fields'])
      .where('stream', '=', stream)
      .where(compareId('stream_entries', '>', cursor))
      .orderBy('ms')
      .orderBy('seq')
      .limit(count),
  ({ stream, cursor, count }) => [stream, cursor.ms, cursor.ms, cursor.seq, count],
);

const moveCursor = builtOnce(
  (db: Db, { stream, group, to }: { stream: string; group: string; to: EntryId }) =>
    db
      .updateTable('stream_groups')
      .set({ last_ms: to.ms, last_seq: to.seq })
      .where('stream', '=', stream)
      .where('group_name', '=', group),
  ({ stream, group, to }) => [to.ms, to.seq, stream, group],
);

/** A consumer group's reads of the SQL stream: what is new for it, and what went stale. */
export function createGroupReads(store: Store, clock: Clock) {
  const reclaimLooks = createReclaimLooks();

  /** Lock-free look first, so idle blocked readers do not take SQLite's write lock per poll. */
  async function anythingToDeliver(stream: string, group: string, claimIdleMs: number) {
    // One statement: an idle consumer asks it every few seconds, a busy one before each read.
    const staleBefore = Math.floor(clock.now()) - claimIdleMs;
    const [row] = (await deliverable(store.db, { stream, group, staleBefore })).rows;
    // No group: let the locked read report it.
    return row === undefined || Boolean(row.any);
  }

  // Per group, not per stream: appenders keep going while consumers claim. Safe because ids
  // are assigned under the stream lock, so committed entries always form a prefix of the ids.
  function deliver(stream: string, group: string, consumer: string, options: ReadGroupOptions) {
    return store.withLock(`stream:${stream}:group:${group}`, async (tx) => {
      const cursor = await groupCursor(tx, stream, group);
      if (!cursor) throw new Error(`NOGROUP: stream "${stream}" has no consumer group "${group}"`);
      const now = Math.floor(clock.now());
      const count = Math.max(1, Math.floor(options.count));
      if (reclaimLooks.due(stream, group, now, options.claimIdleMs)) {
        const reclaimed = await reclaimStale(tx, stream, group, consumer, now, count, options);
        reclaimLooks.looked(stream, group, now, reclaimed.length >= count);
        if (reclaimed.length > 0) return reclaimed;
      }

      const fresh = (await entriesAfter(tx, { stream, cursor, count })).rows;
      const newestFresh = fresh[fresh.length - 1];
      if (!newestFresh) return [];
      await moveCursor(tx, { stream, group, to: newestFresh });
      const pending = fresh.map((row) => ({
        stream,
        group_name: group,
        ms: row.ms,
        seq: row.seq,
        consumer,
        delivered_at: now,
        deliveries: 1,
      }));
      for (const chunk of inChunks(pending)) await insertPending(tx, chunk);
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
    return alive.map((row) => ({ ...toEntry(row), redelivered: true as const }));
  }

  return { anythingToDeliver, deliver };
}
