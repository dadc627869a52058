import type { Selectable } from 'kysely';
import type { Db, Tables, Tx } from '../../ports/store.js';

/** The `heartbeats` table's one module (STYLE, records modules). */

export type HeartbeatRow = Selectable<Tables['heartbeats']>;
export type HeartbeatSettings = Pick<HeartbeatRow, 'timeout_seconds' | 'severity' | 'namespace'>;

/**
 * Records a beat: the heartbeat is `ok` until `now + timeout`. Answers the row as it was
 * before, so the caller can resolve the incident a missed beat opened.
 */
export async function recordBeat(
  db: Db,
  name: string,
  settings: HeartbeatSettings,
  now: number,
): Promise<{ before: HeartbeatRow | undefined; after: HeartbeatRow }> {
  // Two beats of one source at once both leave it `ok`; the later one's times win.
  const before = await db
    .selectFrom('heartbeats')
    .selectAll()
    .where('name', '=', name)
    .executeTakeFirst();
  const after: HeartbeatRow = {
    name,
    ...settings,
    status: 'ok',
    last_beat_at: now,
    expires_at: now + settings.timeout_seconds * 1000,
    incident_id: null,
  };
  await db
    .insertInto('heartbeats')
    .values(after)
    .onConflict((oc) => oc.column('name').doUpdateSet(after))
    .execute();
  return { before, after };
}

/**
 * Marks `name` expired when it is still `ok` and past `expires_at`: true for exactly one
 * caller, whichever replica's sweep gets there first.
 */
export async function expireHeartbeat(db: Db | Tx, name: string, now: number): Promise<boolean> {
  const moved = await db
    .updateTable('heartbeats')
    .set({ status: 'expired' })
    .where('name', '=', name)
    .where('status', '=', 'ok')
    .where('expires_at', '<', now)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Heartbeats `ok` but past their time, for the sweep. */
export function dueHeartbeats(db: Db, now: number, limit: number): Promise<HeartbeatRow[]> {
  return db
    .selectFrom('heartbeats')
    .selectAll()
    .where('status', '=', 'ok')
    .where('expires_at', '<', now)
    .orderBy('expires_at')
    .orderBy('name')
    .limit(limit)
    .execute();
}

/** The incident a missed beat opened, kept until the next beat resolves it. */
export async function setHeartbeatIncident(db: Db, name: string, incidentId: string | null) {
  await db
    .updateTable('heartbeats')
    .set({ incident_id: incidentId })
    .where('name', '=', name)
    .where('status', '=', 'expired')
    .execute();
}

/** A page of heartbeats by name, after `afterName`. */
export function listHeartbeats(db: Db, afterName: string | undefined, limit: number) {
  let query = db.selectFrom('heartbeats').selectAll().orderBy('name').limit(limit);
  if (afterName !== undefined) query = query.where('name', '>', afterName);
  return query.execute();
}

/**
 * Heartbeats missing at `now`: marked `expired`, or still `ok` but past `expires_at` and not
 * yet reached by the sweep (it runs every few seconds).
 */
export async function countExpiredHeartbeats(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('heartbeats')
    .select((eb) => eb.fn.countAll<number>().as('expired'))
    .where((eb) =>
      eb.or([
        eb('status', '=', 'expired'),
        eb.and([eb('status', '=', 'ok'), eb('expires_at', '<', now)]),
      ]),
    )
    .executeTakeFirst();
  return Number(row?.expired ?? 0);
}

export async function deleteHeartbeat(db: Db, name: string): Promise<boolean> {
  const deleted = await db.deleteFrom('heartbeats').where('name', '=', name).executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}
