import { useEffect, useState } from 'preact/hooks';
import { AnalysisList } from './analysis-list';
import { TaskWatch } from './analysis-task';
import { ApiError, api } from './api';
import type { AnalysisAccepted } from './api-types';
import { hrefOf } from './links';
import { Outside } from './outside';

type Mode = 'incident' | 'services';
const SEVERITIES = ['P0', 'P1', 'P2', 'P3'];
const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/**
 * Analyses: one shown at its URL (`#/analysis/<task id>`, kept across reloads), the form that
 * starts another (prefilled from `#/analysis?incident=<id>`) and goes to its URL, and the
 * recent analyses.
 */
export function AnalysisView({
  incident,
  task,
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
      location.hash = hrefOf.analysis(accepted.task_id);
    } catch (reason) {
      if (!(reason instanceof ApiError && [401, 403].includes(reason.status)))
        setError(reason instanceof Error ? reason.message : String(reason));
    }
  };

  return (
    <div class="analysis">
      <h1>Analysis</h1>
      {task && <TaskWatch key={task} taskId={task} />}
      <section class="panel" aria-labelledby="recent-title">
        <h2 id="recent-title">
          {incident ? 'Recent analyses of this incident' : 'Recent analyses'}
        </h2>
        <AnalysisList incidentId={incident} current={task} />
      </section>
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
    </div>
  );
}
