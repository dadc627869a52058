import { useEffect } from 'preact/hooks';
import { api } from './api';
import { useNow } from './hooks';
import { IncidentLink, useIncidentNames } from './incident-names';
import { RecordLink } from './links';
import { Outside } from './outside';
import type { TaskList } from './page-types';
import { onFeedEvent } from './sse';
import { age, when } from './time-text';
import { Loading, useLoad } from './views-common';

function tasksPath(incidentId: string | null) {
  const query = new URLSearchParams({ limit: '20' });
  if (incidentId) query.set('incident_id', incidentId);
  return `/api/v1/agents/tasks?${query}`;
}

/**
 * Recent analyses, newest first, each at its own page: those of one incident, or all. A task
 * the feed reports as changed is listed again.
 */
export function AnalysisList({
  incidentId,
  current,
}: {
  incidentId: string | null;
  /** The task shown on the page, marked in the list. */
  current?: string;
}) {
  const now = useNow();
  const tasks = useLoad(() => api<TaskList>(tasksPath(incidentId)), [incidentId]);
  const names = useIncidentNames(
    incidentId ? [] : (tasks.data?.items ?? []).map((task) => task.incident_id),
  );
  useEffect(
    () =>
      onFeedEvent((event) => {
        if (
          event.type === 'analysis.updated' &&
          ['COMPLETED', 'FAILED'].includes(event.state ?? '')
        )
          tasks.reload();
      }),
    [incidentId],
  );
  if (!tasks.data) return <Loading error={tasks.error} />;
  if (tasks.data.items.length === 0) return <p class="muted">No analysis yet.</p>;
  return (
    <ol class="task-list" data-testid="analysis-list">
      {tasks.data.items.map((task) => (
        <li key={task.task_id} aria-current={task.task_id === current ? 'true' : undefined}>
          <span class={`badge task-${task.state.toLowerCase()}`}>
            <Outside>{task.state}</Outside>
          </span>{' '}
          <RecordLink kind="analysis" id={task.task_id} />{' '}
          <span class="muted small">
            <Outside>{task.trigger}</Outside>,{' '}
            <time dateTime={task.created_at} title={when(task.created_at)}>
              {age(task.created_at, now)} ago
            </time>
            {task.state !== 'COMPLETED' && task.state !== 'FAILED' ? `, ${task.progress}%` : ''}
          </span>
          {!incidentId && task.incident_id && (
            <span class="small">
              {' '}
              for <IncidentLink id={task.incident_id} name={names.get(task.incident_id)} />
            </span>
          )}
        </li>
      ))}
    </ol>
  );
}
