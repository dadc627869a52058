import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, type TaskResult, type TaskStatus } from './api';
import { onFeedEvent, openStream, type StreamState } from './sse';

type Mode = 'incident' | 'services';
const SEVERITIES = ['P0', 'P1', 'P2', 'P3'];
const FINISHED = new Set(['COMPLETED', 'FAILED']);

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function AnalysisView({ incident }: { incident: string | null }) {
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
      const accepted = await api<{ task_id: string }>('/api/v1/agents/analyze', {
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
            {error}
          </p>
        )}
      </form>
      {taskId && <TaskWatch key={taskId} taskId={taskId} />}
    </div>
  );
}

function TaskWatch({ taskId }: { taskId: string }) {
  const [status, setStatus] = useState<TaskStatus | null>(null);
  const [steps, setSteps] = useState<string[]>([]);
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
        let event: TaskStatus;
        try {
          event = JSON.parse(message.data) as TaskStatus;
        } catch {
          return;
        }
        setStatus(event);
        if (event.type === 'agent_completed' && event.agent) {
          setSteps((current) => [...current, `${event.agent} finished`]);
        } else if (event.current_step) {
          const step = event.current_step;
          setSteps((current) => (current.at(-1) === step ? current : [...current, step]));
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
      const step = `${event.state} ${event.progress ?? 0}% (${event.agents_completed ?? 0}/${event.total_agents ?? 0} experts)`;
      setSteps((current) => (current.includes(step) ? current : [...current, step]));
    });
    return () => {
      handle.stop();
      unsubscribe();
    };
  }, [taskId]);

  return (
    <section class="panel" aria-labelledby="task-title">
      <h2 id="task-title">
        Task <code>{taskId}</code>
      </h2>
      <p>
        <span class="badge" data-testid="task-state">
          {status?.state ?? 'PENDING'}
        </span>{' '}
        {status ? `${status.agents_completed}/${status.total_agents} experts` : ''}{' '}
        <span class="muted">stream {stream}</span>
      </p>
      <label for="task-progress">Progress {status?.progress ?? 0}%</label>
      <progress id="task-progress" max={100} value={status?.progress ?? 0} />
      {status?.error && <p class="error">{status.error}</p>}
      {steps.length > 0 && (
        <ol class="timeline">
          {steps.map((step, index) => (
            <li key={`${index}-${step}`}>{step}</li>
          ))}
        </ol>
      )}
      {result && <Result result={result} />}
    </section>
  );
}

function Result({ result }: { result: TaskResult }) {
  return (
    <div class="result" data-testid="analysis-result">
      <h3>Consensus</h3>
      <dl class="facts">
        <dt>Score</dt>
        <dd>{result.consensus_score ?? '–'}</dd>
        <dt>Risk</dt>
        <dd>{result.risk_level ?? '–'}</dd>
        <dt>Action</dt>
        <dd>{result.recommended_action ?? '–'}</dd>
        {result.recommended_kubectl && (
          <>
            <dt>kubectl</dt>
            <dd>
              <code>{result.recommended_kubectl}</code>
            </dd>
          </>
        )}
      </dl>
      {result.final_reasoning && <p class="pre">{result.final_reasoning}</p>}
      {result.opinions && result.opinions.length > 0 && (
        <>
          <h3>Opinions</h3>
          <ul class="cards">
            {result.opinions.map((opinion, index) => (
              <li class="card" key={String(opinion.agent ?? index)}>
                <p class="card-title">{String(opinion.agent ?? 'expert')}</p>
                <p class="meta">
                  {String(opinion.recommended_action ?? '–')} · risk{' '}
                  {String(opinion.risk_level ?? '–')} · confidence{' '}
                  {String(opinion.confidence ?? '–')}
                </p>
                {typeof opinion.reasoning === 'string' && <p>{opinion.reasoning}</p>}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Dissent</h3>
      {result.dissenting_opinions?.length ? (
        <ul>
          {result.dissenting_opinions.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      ) : (
        <p class="muted">None.</p>
      )}
    </div>
  );
}
