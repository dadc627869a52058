import { useState } from 'preact/hooks';
import { AnalysisList } from './analysis-list';
import { ApiError, api } from './api';
import type { AnalysisAccepted } from './api-types';
import { hrefOf } from './links';
import { Outside } from './outside';

/** Starts an analysis of the incident and goes to its page, where it streams to its result. */
export async function startIncidentAnalysis(incidentId: string): Promise<void> {
  const accepted = await api<AnalysisAccepted>('/api/v1/agents/analyze', {
    method: 'POST',
    body: { incident_id: incidentId },
  });
  location.hash = hrefOf.analysis(accepted.task_id);
}

/** The incident's analyses, each at its URL, and a button that starts one. */
export function IncidentAnalyses({ incidentId }: { incidentId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const analyze = async () => {
    setBusy(true);
    setError(null);
    try {
      await startIncidentAnalysis(incidentId);
    } catch (reason) {
      if (!(reason instanceof ApiError && [401, 403].includes(reason.status)))
        setError(reason instanceof Error ? reason.message : String(reason));
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="analyses-title">
      <h2 id="analyses-title">Analyses</h2>
      <AnalysisList incidentId={incidentId} />
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void analyze()}>
          Analyze
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          <Outside>{error}</Outside>
        </p>
      )}
    </section>
  );
}
