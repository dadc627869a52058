import type { AgentName } from './analysis-types.js';
import type { TaskRow } from './task-views.js';

/** spec, Events, Task progress: "server-sent events on topic `agent_task:<task_id>`". */
export function taskTopic(taskId: string): string {
  return `agent_task:${taskId}`;
}

/** CONTRACT, Analysis tasks: the types of the events after the first. */
export type TaskEventType = 'progress' | 'agent_completed' | 'completed' | 'failed';

/**
 * CONTRACT, Analysis tasks: the event shape. Beyond it: `seq`, the event's number within its
 * task (the SSE `id:`), `error` on a failed event, and on the bus only `published_at` (epoch
 * ms, for measuring delivery delay).
 */
export interface TaskEvent {
  type: TaskEventType;
  task_id: string;
  state: string;
  progress: number;
  current_step: string | null;
  agents_completed: number;
  total_agents: number;
  agent?: AgentName;
  error?: string;
  seq: number;
}

/** The event recorded with a task change, from the task row as that change left it. */
export function taskEvent(row: TaskRow, type: TaskEventType, agent?: AgentName): TaskEvent {
  return {
    type,
    task_id: row.id,
    state: row.state,
    progress: row.progress,
    current_step: row.current_step,
    agents_completed: row.agents_completed,
    total_agents: row.total_agents,
    ...(agent ? { agent } : {}),
    ...(type === 'failed' && row.error ? { error: row.error } : {}),
    seq: row.last_event_seq,
  };
}

/** What goes on the bus: the recorded event plus when it was published. */
export function busMessage(event: TaskEvent, publishedAt: number): string {
  return JSON.stringify({ ...event, published_at: publishedAt });
}

/**
 * spec, Analysis task: "progress rises 0-100". Claiming the task is 10, each settled expert
 * adds its share of 80, the end (consensus built) is 100. The consensus takes microseconds, so
 * it gets no event of its own: it would only add a burst to every stream.
 */
export const PROGRESS = { started: 10, done: 100 } as const;

export function progressAfter(settled: number, total: number): number {
  return PROGRESS.started + Math.floor((80 * settled) / Math.max(1, total));
}
