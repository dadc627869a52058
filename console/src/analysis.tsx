import { useEffect, useRef, useState } from 'preact/hooks';
import { Result } from './analysis-result';
import { ApiError, api } from './api';
import type { AnalysisAccepted, TaskEvent, TaskResult } from './api-types';
import { progressText } from './feed-text';
import { Outside } from './outside';
import { onFeedEvent, openStream, type StreamState } from './sse';

type Mode = 'incident' | 'services';
const SEVERITIES = ['P0', 'P1', 'P2', 'P3'];
const FINISHED = new Set(['COMPLETED', 'FAILED']);

/** A progress line: the task's own words (outside text), then the page's. */
interface Step {
  outside: string;
  own: string;
}

const sameStep = (a: Step | undefined, b: Step) => a?.outside === b.outside && a.own === b.own;

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function AnalysisView({
  incident,
}: {
  incident: string | null;
  /** A task to show (`#/analysis/<task id>`), kept across reloads. */
  task?: string;
}) {
  const [mode, setMode] = useState<Mode>(incident ? 'incident' : 'services');
  const [incidentId, setIncidentId] = useState(incident ?? '');
  const [severity, setSeverity] = useState('P2');
  const [services, setServices] = useState('');
  const [alertNames, setAlertNames] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [taskId, setTaskId] = useState<string | null>(null);

  useEffect(() => {
    if (incident) {
      setMode('incident');
      setIncidentId(incident);
    }
  }, [incident]);

  const start = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const body =
      mode === 'incident'
        ? { incident_id: incidentId.trim() }
        : {
            severity,
            affected_services: list(services),
            ...(list(alertNames).length ? { alert_names: list(alertNames) } : {}),
          };
    try {
      const accepted = await api<AnalysisAccepted>('/api/v1/agents/analyze', {
        method: 'POST',
        body,
      });
      setTaskId(accepted.task_id);
    } catch (reason) {
      if (!(reason instanceof ApiError && [401, 403].includes(reason.status)))
        setError(reason instanceof Error ? reason.message : String(reason));
    }
  };

  return (
    <div class="analysis">
      <h1>Analysis</h1>
      <form class="panel stack" onSubmit={start} aria-labelledby="start-title">
        <h2 id="start-title">Start an analysis</h2>
        <fieldset>
          <legend>Input</legend>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="incident"
              checked={mode === 'incident'}
              onChange={() => setMode('incident')}
            />{' '}
            An incident
          </label>
          <label class="inline">
            <input
              type="radio"
              name="mode"
              value="services"
              checked={mode === 'services'}
              onChange={() => setMode('services')}
            />{' '}
            Severity and services
          </label>
        </fieldset>
        {mode === 'incident' ? (
          <>
            <label for="analysis-incident">Incident id</label>
            <input
              id="analysis-incident"
              required
              value={incidentId}
              onInput={(event) => setIncidentId(event.currentTarget.value)}
            />
          </>
        ) : (
          <>
            <label for="analysis-severity">Severity</label>
            <select
              id="analysis-severity"
              value={severity}
              onChange={(event) => setSeverity(event.currentTarget.value)}
            >
              {SEVERITIES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
            <label for="analysis-services">Affected services (comma-separated)</label>
            <input
              id="analysis-services"
              required
              value={services}
              onInput={(event) => setServices(event.currentTarget.value)}
            />
            <label for="analysis-alerts">Alert names (optional, comma-separated)</label>
            <input
              id="analysis-alerts"
              value={alertNames}
              onInput={(event) => setAlertNames(event.currentTarget.value)}
            />
          </>
        )}
        <button type="submit">Start analysis</button>
        {error && (
          <p class="error" role="alert">
            <Outside>{error}</Outside>
          </p>
        )}
      </form>
      {taskId && <TaskWatch key={taskId} taskId={taskId} />}
    </div>
  );
}

function TaskWatch({ taskId }: { taskId: string }) {
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
    <section class="panel" aria-labelledby="task-title">
      <h2 id="task-title">
        Task{' '}
        <code>
          <Outside>{taskId}</Outside>
        </code>
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
