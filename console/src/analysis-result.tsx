import type { TaskResult } from './api-types';
import { IncidentLink, useIncidentNames } from './incident-names';
import { Outside } from './outside';

/** A finished analysis: the consensus, each expert's opinion, and the dissent. */
export function Result({ result }: { result: TaskResult }) {
  const names = useIncidentNames([result.incident_id]);
  return (
    <div class="result" data-testid="analysis-result">
      <h3>Consensus</h3>
      <dl class="facts">
        {result.incident_id && (
          <>
            <dt>Incident</dt>
            <dd>
              <IncidentLink id={result.incident_id} name={names.get(result.incident_id)} />
            </dd>
          </>
        )}
        <dt>Score</dt>
        <dd>{result.consensus_score ?? '–'}</dd>
        <dt>Risk</dt>
        <dd>
          <Outside>{result.risk_level ?? '–'}</Outside>
        </dd>
        <dt>Action</dt>
        <dd>
          <Outside>{result.recommended_action ?? '–'}</Outside>
        </dd>
        {result.recommended_kubectl && (
          <>
            <dt>kubectl</dt>
            <dd>
              <code>
                <Outside>{result.recommended_kubectl}</Outside>
              </code>
            </dd>
          </>
        )}
      </dl>
      {result.final_reasoning && (
        <p class="pre">
          <Outside>{result.final_reasoning}</Outside>
        </p>
      )}
      {result.opinions && result.opinions.length > 0 && (
        <>
          <h3>Opinions</h3>
          <ul class="cards">
            {result.opinions.map((opinion, index) => (
              <li class="card" key={String(opinion.agent ?? index)}>
                <p class="card-title">
                  <Outside>{String(opinion.agent ?? 'expert')}</Outside>
                </p>
                <p class="meta">
                  <Outside>{String(opinion.recommended_action ?? '–')}</Outside> · risk{' '}
                  <Outside>{String(opinion.risk_level ?? '–')}</Outside> · confidence{' '}
                  <Outside>{String(opinion.confidence ?? '–')}</Outside>
                </p>
                {typeof opinion.reasoning === 'string' && (
                  <p>
                    <Outside>{opinion.reasoning}</Outside>
                  </p>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Dissent</h3>
      {result.dissenting_opinions?.length ? (
        <ul>
          {result.dissenting_opinions.map((text) => (
            <li key={text}>
              <Outside>{text}</Outside>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None.</p>
      )}
    </div>
  );
}
