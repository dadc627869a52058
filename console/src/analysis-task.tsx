import { useEffect, useRef, useState } from 'preact/hooks';
import { Result } from './analysis-result';
import { api } from './api';
import type { TaskEvent, TaskResult } from './api-types';
import { progressText } from './feed-text';
import { RecordLink } from './links';
import { Outside } from './outside';
import { onFeedEvent, openStream, type StreamState } from './sse';

const FINISHED = new Set(['COMPLETED', 'FAILED']);

/** A progress line: the task's own words (outside text), then the page's. */
interface Step {
  outside: string;
  own: string;
}

const sameStep = (a: Step | undefined, b: Step) => a?.outside === b.outside && a.own === b.own;

/**
 * One analysis at its URL (`#/analysis/<task id>`): its state and progress, live from its own
 * stream and the feed, then its result. After a reload the stream starts with the task's
 * current status, so a finished task shows its result at once.
 */
export function TaskWatch({ taskId }: { taskId: string }) {
  const [status, setStatus] = useState<TaskEvent | null>(null);
  const [steps, setSteps] = useState<Step[]>([]);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [result, setResult] = useState<TaskResult | null>(null);
  const finished = useRef(false);

  useEffect(() => {
    const path = encodeURIComponent(taskId);
    const handle = openStream({
      url: `/api/v1/agents/stream/${path}`,
      onState: setStream,
      done: () => finished.current,
      onMessage: (message) => {
        let event: TaskEvent;
        try {
          event = JSON.parse(message.data) as TaskEvent;
        } catch {
          return;
        }
        setStatus(event);
        if (event.type === 'agent_completed' && event.agent) {
          const step = { outside: event.agent, own: ' finished' };
          setSteps((current) => [...current, step]);
        } else if (event.current_step) {
          const step = { outside: event.current_step, own: '' };
          setSteps((current) => (sameStep(current.at(-1), step) ? current : [...current, step]));
        }
        if (FINISHED.has(event.state) && !finished.current) {
          finished.current = true;
          handle.stop();
          api<TaskResult>(`/api/v1/agents/result/${path}`).then(setResult, () => {});
        }
      },
    });
    // The event feed reports the task too, sometimes before its own stream is open.
    const unsubscribe = onFeedEvent((event) => {
      if (event.type !== 'analysis.updated' || event.task_id !== taskId) return;
      const step = {
        outside: event.state ?? '',
        own: ` ${progressText(event)}`,
      };
      setSteps((current) =>
        current.some((known) => sameStep(known, step)) ? current : [...current, step],
      );
    });
    return () => {
      handle.stop();
      unsubscribe();
    };
  }, [taskId]);

  return (
    <section class="panel" aria-labelledby="task-title" data-task-id={taskId}>
      <h2 id="task-title">
        Task <RecordLink kind="analysis" id={taskId} />
      </h2>
      <p>
        <span class="badge" data-testid="task-state">
          <Outside>{status?.state ?? 'PENDING'}</Outside>
        </span>{' '}
        {status ? `${status.agents_completed}/${status.total_agents} experts` : ''}{' '}
        <span class="muted">stream {stream}</span>
      </p>
      <label for="task-progress">Progress {status?.progress ?? 0}%</label>
      <progress id="task-progress" max={100} value={status?.progress ?? 0} />
      {status?.error && (
        <p class="error">
          <Outside>{status.error}</Outside>
        </p>
      )}
      {steps.length > 0 && (
        <ol class="timeline">
          {steps.map((step, index) => (
            <li key={`${index}-${step.outside}`}>
              <Outside>{step.outside}</Outside>
              {step.own}
            </li>
          ))}
        </ol>
      )}
      {result && <Result result={result} />}
    </section>
  );
}
