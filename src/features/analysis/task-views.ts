import type { Selectable } from 'kysely';
import type { Tables } from '../../ports/store.js';
import type { Consensus } from './analysis-types.js';

export type TaskRow = Selectable<Tables['analysis_tasks']>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** spec, Task status: every field, with the spec's defaults where the task has no value. */
export function statusView(row: TaskRow) {
  return {
    task_id: row.id,
    state: row.state || 'unknown',
    progress: row.progress ?? 0,
    current_step: row.current_step ?? null,
    agents_completed: row.agents_completed ?? 0,
    total_agents: row.total_agents ?? 4,
    started_at: iso(row.started_at),
    completed_at: iso(row.completed_at),
    error: row.error ?? null,
  };
}

export type TaskStatus = ReturnType<typeof statusView>;

/**
 * spec, Task result: "Only a completed task carries a full result"; any other state answers
 * with every result field null. `created_at` is "taken from the task's completion time".
 */
export function resultView(row: TaskRow) {
  const consensus =
    row.state === 'COMPLETED' && row.result ? (JSON.parse(row.result) as Consensus) : null;
  return {
    task_id: row.id,
    state: row.state || 'unknown',
    consensus_id: consensus?.consensus_id ?? null,
    incident_id: consensus ? row.incident_id : null,
    recommended_action: consensus?.recommended_action ?? null,
    recommended_kubectl: consensus?.recommended_kubectl ?? null,
    risk_level: consensus?.risk_level ?? null,
    final_reasoning: consensus?.final_reasoning ?? null,
    consensus_score: consensus?.consensus_score ?? null,
    opinions: consensus?.opinions ?? null,
    dissenting_opinions: consensus?.dissenting_opinions ?? null,
    created_at: consensus ? iso(row.completed_at) : null,
  };
}

/** A task as the list of analyses shows it. */
export function taskListItem(
  row: Pick<
    TaskRow,
    'id' | 'incident_id' | 'trigger' | 'state' | 'progress' | 'created_at' | 'completed_at'
  >,
) {
  return {
    task_id: row.id,
    incident_id: row.incident_id,
    trigger: row.trigger,
    state: row.state,
    progress: row.progress,
    created_at: new Date(Number(row.created_at)).toISOString(),
    completed_at: iso(row.completed_at === null ? null : Number(row.completed_at)),
  };
}

export type TaskListItem = ReturnType<typeof taskListItem>;
