import type { Selectable } from 'kysely';
import type { Db, Store, Tables } from '../../ports/store.js';
import { inChunks } from '../../support/in-chunks.js';
import type { Matcher } from './silence-matchers.js';

/** The `silences` table's one module. */

/** A muted alert, as the console lists it under its silence. */
export interface MutedAlert {
  alert_id: string;
  fingerprint: string;
  at: number;
}

export interface Silence {
  id: string;
  matchers: Matcher[];
  startsAt: number;
  endsAt: number;
  updatedAt: number;
  createdBy: string;
  comment: string;
  silencedAlerts: number;
  recentSilenced: MutedAlert[];
}

/** What deciding whether a silence mutes needs: no comment, nothing of what it muted. */
export type MatchableSilence = Pick<
  Silence,
  'id' | 'matchers' | 'startsAt' | 'endsAt' | 'updatedAt' | 'createdBy'
>;

/** What a silence is, apart from its id and what it muted. */
export type SilenceFields = Pick<
  Silence,
  'matchers' | 'startsAt' | 'endsAt' | 'updatedAt' | 'createdBy' | 'comment'
>;

/** How many muted alerts a silence remembers by id. */
export const RECENT_SILENCED_KEPT = 20;

type MatchableColumns = 'id' | 'matchers' | 'starts_at' | 'ends_at' | 'updated_at' | 'created_by';

function matchableOf(
  row: Pick<Selectable<Tables['silences']>, MatchableColumns>,
): MatchableSilence {
  return {
    id: row.id,
    matchers: JSON.parse(row.matchers) as Matcher[],
    startsAt: Number(row.starts_at),
    endsAt: Number(row.ends_at),
    updatedAt: Number(row.updated_at),
    createdBy: row.created_by,
  };
}

function silenceOf(row: Selectable<Tables['silences']>): Silence {
  return {
    ...matchableOf(row),
    comment: row.comment,
    silencedAlerts: Number(row.silenced_alerts),
    recentSilenced: JSON.parse(row.recent_silenced) as MutedAlert[],
  };
}

function columnsOf(fields: SilenceFields) {
  return {
    matchers: JSON.stringify(fields.matchers),
    starts_at: fields.startsAt,
    ends_at: fields.endsAt,
    updated_at: fields.updatedAt,
    created_by: fields.createdBy,
    comment: fields.comment,
  };
}

export async function insertSilence(db: Db, id: string, fields: SilenceFields): Promise<void> {
  await db
    .insertInto('silences')
    .values({ id, ...columnsOf(fields) })
    .execute();
}

/** Replaces what a silence is, keeping what it muted; false when there is no such silence. */
export async function replaceSilence(db: Db, id: string, fields: SilenceFields): Promise<boolean> {
  const result = await db
    .updateTable('silences')
    .set(columnsOf(fields))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function findSilence(db: Db, id: string): Promise<Silence | undefined> {
  const row = await db.selectFrom('silences').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? silenceOf(row) : undefined;
}

/** The silences with these ids, whole, a statement of at most ROWS_PER_STATEMENT ids at a time. */
export async function findSilences(db: Db, ids: readonly string[]): Promise<Silence[]> {
  const found: Silence[] = [];
  for (const chunk of inChunks(ids)) {
    const rows = await db.selectFrom('silences').selectAll().where('id', 'in', chunk).execute();
    found.push(...rows.map(silenceOf));
  }
  return found;
}

/** Silences that end after `after`: the unexpired ones, or those still listed. */
export async function silencesEndingAfter(db: Db, after: number): Promise<Silence[]> {
  const rows = await db
    .selectFrom('silences')
    .selectAll()
    .where('ends_at', '>', after)
    .orderBy('ends_at')
    .execute();
  return rows.map(silenceOf);
}

/** Which version of a silence is stored: what a replica compares with what it holds. */
export type SilenceVersion = Pick<Silence, 'id' | 'updatedAt' | 'endsAt'>;

/** The versions of the silences that end after `after`: a few bytes each. */
export async function silenceVersionsEndingAfter(db: Db, after: number): Promise<SilenceVersion[]> {
  const rows = await db
    .selectFrom('silences')
    .select(['id', 'updated_at', 'ends_at'])
    .where('ends_at', '>', after)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    updatedAt: Number(row.updated_at),
    endsAt: Number(row.ends_at),
  }));
}

/**
 * The silences with these ids, without their comments and muted alerts: what every replica
 * holds. Read a batch at a time: up to SILENCES_MAX of SILENCE_MAX_BYTES each are held, and
 * reading them all at once would hold them twice.
 */
export async function matchableSilencesWithIds(
  db: Db,
  ids: readonly string[],
): Promise<MatchableSilence[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('silences')
    .select(['id', 'matchers', 'starts_at', 'ends_at', 'updated_at', 'created_by'])
    .where('id', 'in', ids)
    .execute();
  return rows.map(matchableOf);
}

/** How many silences end after `now`: the unexpired ones, which SILENCES_MAX bounds. */
export async function countSilencesEndingAfter(db: Db, now: number): Promise<number> {
  const row = await db
    .selectFrom('silences')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('ends_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Adds muted alerts to a silence's count and its recent list, under the silence's lock so
 * replicas adding at once keep every count.
 */
export async function addMutedAlerts(
  store: Store,
  id: string,
  muted: readonly MutedAlert[],
): Promise<void> {
  await store.withLock(`silence:${id}`, async (tx) => {
    const row = await tx
      .selectFrom('silences')
      .select(['silenced_alerts', 'recent_silenced'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return;
    const recent = [...muted]
      .reverse()
      .concat(JSON.parse(row.recent_silenced) as MutedAlert[])
      .slice(0, RECENT_SILENCED_KEPT);
    await tx
      .updateTable('silences')
      .set({
        silenced_alerts: Number(row.silenced_alerts) + muted.length,
        recent_silenced: JSON.stringify(recent),
      })
      .where('id', '=', id)
      .execute();
  });
}
