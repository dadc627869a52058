import type { Updateable } from 'kysely';
import { errors } from '../../errors.js';
import type { Db, Store, Tables } from '../../ports/store.js';
import { decodeCursor, type Page, pageOf } from '../../support/newest-first.js';
import type { AnalysisRequest } from './analysis-request.js';
import { AGENTS, type AgentName, type TaskState } from './analysis-types.js';
import { type TaskEvent, type TaskEventType, taskEvent } from './progress-events.js';
import { type TaskListItem, type TaskRow, taskListItem } from './task-views.js';

/** spec, Limits: "Experts per task: 4". */
export const TOTAL_AGENTS = AGENTS.length;

/** The task rows and their numbered events; every change of a task records its event with it. */

export async function insertTask(
  db: Db,
  task: { id: string; request: AnalysisRequest; incidentId: string | null; now: number },
): Promise<void> {
  await db
    .insertInto('analysis_tasks')
    .values({
      id: task.id,
      // spec, Analysis tasks: "the task is created with trigger manual".
      trigger: 'manual',
      incident_id: task.incidentId,
      request: JSON.stringify(task.request),
      state: 'PENDING',
      progress: 0,
      current_step: null,
      agents_completed: 0,
      total_agents: TOTAL_AGENTS,
      last_event_seq: 0,
      error: null,
      result: null,
      created_at: task.now,
      started_at: null,
      completed_at: null,
      locked_until: null,
    })
    .execute();
}

/** Tasks that hold a place: waiting for a worker or running. */
const IN_FLIGHT_STATES: TaskState[] = ['PENDING', 'RUNNING'];

/**
 * CONTRACT, Access: at most `maxInFlight` tasks PENDING or RUNNING at once. The count and
 * the insert share one lock, so concurrent requests on any replica cannot overshoot.
 */
export function admitTask(
  store: Store,
  maxInFlight: number,
  task: Parameters<typeof insertTask>[1],
): Promise<boolean> {
  return store.withLock('analysis-admission', async (tx) => {
    const { count } = await tx
      .selectFrom('analysis_tasks')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('state', 'in', IN_FLIGHT_STATES)
      .executeTakeFirstOrThrow();
    if (Number(count) >= maxInFlight) return false;
    await insertTask(tx, task);
    return true;
  });
}

/** Where a page of tasks ended: the last one's creation time and id. */
function decodeTaskCursor(
  cursor: string | undefined,
): { createdAt: number; id: string } | undefined {
  const position = decodeCursor(cursor);
  if (position === undefined) return undefined;
  const separator = position.indexOf(':');
  const createdAt = Number(position.slice(0, separator));
  if (separator < 1 || !Number.isSafeInteger(createdAt)) throw errors.badCursor();
  return { createdAt, id: position.slice(separator + 1) };
}

/**
 * One page of tasks, newest first (by creation, then id), optionally of one incident. Tasks
 * have no row number, so the cursor is the last one's (created_at, id).
 */
export async function listTasks(
  db: Db,
  filters: { incident_id?: string },
  page: { limit?: number; cursor?: string },
): Promise<Page<TaskListItem>> {
  const limit = page.limit ?? 50;
  let query = db
    .selectFrom('analysis_tasks')
    .select(['id', 'incident_id', 'trigger', 'state', 'progress', 'created_at', 'completed_at']);
  if (filters.incident_id !== undefined) {
    query = query.where('incident_id', '=', filters.incident_id);
  }
  const after = decodeTaskCursor(page.cursor);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return pageOf(rows, limit, (row) => `${Number(row.created_at)}:${row.id}`, taskListItem);
}

export function findTask(db: Db, id: string): Promise<TaskRow | undefined> {
  return db.selectFrom('analysis_tasks').selectAll().where('id', '=', id).executeTakeFirst();
}

export type TaskChange = Omit<
  Updateable<Tables['analysis_tasks']>,
  'id' | 'last_event_seq' | 'created_at'
>;

export interface ChangeGuard {
  /** The state the task must be in; a task another writer moved on is left alone. */
  state: TaskState;
  /** Only a task whose lease ran out before this time (the sweep of interrupted tasks). */
  leaseBefore?: number;
}

/** The event a change records: its type, its expert (agent_completed), and when. */
export interface EventSpec {
  type: TaskEventType;
  agent?: AgentName;
  now: number;
}

/**
 * Applies `change` and records the event it makes under the next number, in one transaction:
 * an event is never stored without its change, nor a change without its event. Undefined when
 * the guard did not match.
 */
export function changeTask(
  db: Db,
  id: string,
  guard: ChangeGuard,
  change: TaskChange,
  event: EventSpec,
): Promise<TaskEvent | undefined> {
  return db.transaction().execute(async (tx) => {
    let update = tx
      .updateTable('analysis_tasks')
      .set((eb) => ({ ...change, last_event_seq: eb('last_event_seq', '+', 1) }))
      .where('id', '=', id)
      .where('state', '=', guard.state);
    if (guard.leaseBefore !== undefined) {
      update = update.where('locked_until', '<', guard.leaseBefore);
    }
    const row = await update.returningAll().executeTakeFirst();
    if (!row) return undefined;
    const recorded = taskEvent(row, event.type, event.agent);
    await tx
      .insertInto('analysis_task_events')
      .values({
        task_id: id,
        seq: row.last_event_seq,
        data: JSON.stringify(recorded),
        created_at: event.now,
      })
      .execute();
    return recorded;
  });
}

/** Extends a running task's lease; false when the task is no longer running. */
export async function renewTaskLease(db: Db, id: string, until: number): Promise<boolean> {
  const result = await db
    .updateTable('analysis_tasks')
    .set({ locked_until: until })
    .where('id', '=', id)
    .where('state', '=', 'RUNNING')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface StoredEvent {
  seq: number;
  data: string;
}

/** A task's recorded events numbered above `after` (and up to `upTo`), in order. */
export function eventsAfter(
  db: Db,
  taskId: string,
  after: number,
  upTo?: number,
): Promise<StoredEvent[]> {
  let select = db
    .selectFrom('analysis_task_events')
    .select(['seq', 'data'])
    .where('task_id', '=', taskId)
    .where('seq', '>', after);
  if (upTo !== undefined) select = select.where('seq', '<=', upTo);
  return select.orderBy('seq').execute();
}

/** Running tasks whose lease ran out before `now`: their process stopped renewing it. */
export async function expiredTaskIds(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('analysis_tasks')
    .select('id')
    .where('state', '=', 'RUNNING')
    .where('locked_until', '<', now)
    .limit(100)
    .execute();
  return rows.map((row) => row.id);
}

const PURGE_BATCH = 500;

/**
 * Deletes tasks finished before `cutoff`, with their events; returns how many. A task still
 * pending at the cutoff was never run (its job was lost with the queue) and goes too.
 */
export async function purgeFinishedBefore(db: Db, cutoff: number): Promise<number> {
  let purged = 0;
  for (;;) {
    const count = await db.transaction().execute(async (tx) => {
      const ids = (
        await tx
          .selectFrom('analysis_tasks')
          .select('id')
          .where((eb) =>
            eb.or([
              eb.and([eb('state', 'in', ['COMPLETED', 'FAILED']), eb('completed_at', '<', cutoff)]),
              eb.and([eb('state', '=', 'PENDING'), eb('created_at', '<', cutoff)]),
            ]),
          )
          .limit(PURGE_BATCH)
          .execute()
      ).map((row) => row.id);
      if (ids.length === 0) return 0;
      await tx.deleteFrom('analysis_task_events').where('task_id', 'in', ids).execute();
      await tx.deleteFrom('analysis_tasks').where('id', 'in', ids).execute();
      return ids.length;
    });
    purged += count;
    if (count < PURGE_BATCH) return purged;
  }
}
