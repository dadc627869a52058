import type { Db, Tx } from '../../ports/store.js';
import { insertBuiltOnce } from '../../support/built-once.js';

/** The `incident_timeline` table's one module (STYLE, records modules). */

/** CONTRACT, Incident lifecycle: the moves a timeline names. */
export type TimelineEvent = 'opened' | 'acknowledged' | 'resolved' | 'reopened';

export interface TimelineEntry {
  at: string;
  event: string;
  actor: string;
}

export async function addTimelineEntries(
  tx: Tx,
  entries: ReadonlyArray<{ incidentId: string; at: number; event: TimelineEvent; actor: string }>,
): Promise<void> {
  if (entries.length === 0) return;
  await insertTimelineRows(
    tx,
    entries.map(({ incidentId, at, event, actor }) => ({
      incident_id: incidentId,
      at,
      event,
      actor,
    })),
  );
}

const insertTimelineRows = insertBuiltOnce('incident_timeline', [
  'incident_id',
  'at',
  'event',
  'actor',
]);

/** Oldest first. */
export async function timelineOf(db: Db, incidentId: string): Promise<TimelineEntry[]> {
  const rows = await db
    .selectFrom('incident_timeline')
    .select(['at', 'event', 'actor'])
    .where('incident_id', '=', incidentId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({
    at: new Date(Number(row.at)).toISOString(),
    event: row.event,
    actor: row.actor,
  }));
}
