import { countIncidentsSince, lastIncidentSeenAt } from '../incidents/incident-counts.js';
import { latestOperations } from '../oplog/operation-reads.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { runtimeControl } from './runtime-control.js';

/**
 * spec, Readbacks: live, agentcore-live-ops-scene-state: "animation scene state derived from
 * the public-safe trace ledger and work-item progress of the autonomous runtime control".
 * The trace ledger is the operation log reduced to public-safe fields (type, actor, outcome,
 * time, a cut summary; never the context object); the route redacts it like every readback.
 */
export const SCENE_ACTORS = [
  'intake',
  'stability',
  'security',
  'cost',
  'performance',
  'executor',
  'chat_gateway',
] as const;
const EXPERTS = ['stability', 'security', 'cost', 'performance'] as const;
/** An actor counts as active when it acted this recently. */
export const ACTIVE_WINDOW_MS = 5 * 60 * 1000;
export const TRACE_LENGTH = 20;
const EXECUTOR_TYPES: ReadonlySet<string> = new Set([
  'AUTO_REPAIR_TRIGGERED',
  'EXECUTION_COMPLETED',
]);
const CHAT_TYPES: ReadonlySet<string> = new Set(['CHAT_SENT', 'CHAT_RESULT_SENT']);

export interface TraceEvent {
  seq: number;
  type: string;
  actor: string;
  success: boolean;
  at: number;
  summary: string;
}

interface WorkItem {
  id: string;
  title: string;
  status: string;
  progress_percent: number;
  owner_role: string | null;
}

/** Pure: the scene from the trace, the work items and the latest intake time. */
export function buildScene(input: {
  now: number;
  trace: readonly TraceEvent[];
  workItems: readonly WorkItem[];
  lastIntakeAt: number | null;
  recentIntake: number;
  chatConfigured: boolean;
}) {
  const recent = (at: number | null | undefined) =>
    at != null && input.now - at <= ACTIVE_WINDOW_MS;
  const lastOf = (types: ReadonlySet<string>) => input.trace.find((event) => types.has(event.type));
  const executor = lastOf(EXECUTOR_TYPES);
  const chat = lastOf(CHAT_TYPES);
  const actors = [
    {
      id: 'intake',
      state: recent(input.lastIntakeAt) ? 'active' : 'idle',
      activity:
        input.recentIntake > 0
          ? `${input.recentIntake} alert(s) in the last 5 minutes`
          : 'waiting for alerts',
      last_event_at: input.lastIntakeAt,
    },
    ...EXPERTS.map((expert) => {
      const item = input.workItems.find((w) => w.owner_role === expert && w.status !== 'done');
      return {
        id: expert,
        state: item ? 'active' : 'idle',
        activity: item ? `${item.title} (${item.progress_percent}%)` : 'no open work item',
        last_event_at: null,
      };
    }),
    {
      id: 'executor',
      state: executor && recent(executor.at) ? (executor.success ? 'active' : 'blocked') : 'idle',
      activity: executor ? `${executor.type.toLowerCase()}: ${executor.summary}` : 'no repair yet',
      last_event_at: executor?.at ?? null,
    },
    {
      id: 'chat_gateway',
      state: !input.chatConfigured ? 'offline' : chat && recent(chat.at) ? 'active' : 'idle',
      activity: chat ? `${chat.type.toLowerCase()}` : 'no message sent yet',
      last_event_at: chat?.at ?? null,
    },
  ];
  const stateOf = (id: string) => actors.find((actor) => actor.id === id)?.state;
  const edges = [
    ...EXPERTS.map((expert) => ({ from: 'intake', to: expert })),
    ...EXPERTS.map((expert) => ({ from: expert, to: 'executor' })),
    { from: 'executor', to: 'chat_gateway' },
  ].map((edge) => ({
    ...edge,
    active: stateOf(edge.from) === 'active' && stateOf(edge.to) === 'active',
  }));
  const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
  return {
    frame: { sequence: input.trace[0]?.seq ?? 0, generated_at: new Date(input.now).toISOString() },
    actors: actors.map((actor) => ({ ...actor, last_event_at: iso(actor.last_event_at) })),
    edges,
    trace: input.trace.map((event) => ({ ...event, at: new Date(event.at).toISOString() })),
    work_items: input.workItems,
  };
}

export async function liveOpsScene(ctx: ReadbackContext) {
  const control = await runtimeControl(ctx);
  const db = ctx.services.store.db;
  const rows = await latestOperations(db, TRACE_LENGTH);
  const now = ctx.now();
  const lastIntakeAt = await lastIncidentSeenAt(db);
  const recentIntake = await countIncidentsSince(db, now - ACTIVE_WINDOW_MS, 'last_seen');
  return {
    schema_version: 'agentcore_live_ops_scene_state_v1',
    ...buildScene({
      now,
      trace: rows.map((row) => ({
        seq: Number(row.seq),
        type: row.type,
        actor: row.actor,
        success: Number(row.success) === 1,
        at: Number(row.created_at),
        summary:
          row.action_detail.length > 120
            ? `${row.action_detail.slice(0, 120)}…`
            : row.action_detail,
      })),
      workItems: control.work_items,
      lastIntakeAt,
      recentIntake,
      chatConfigured: ctx.services.chat.configured,
    }),
    policy_summary: control.summary,
  };
}
