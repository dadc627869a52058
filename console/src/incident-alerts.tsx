import { Outside } from './outside';
import { OutsideLink } from './outside-link';
import type { IncidentAlert } from './page-types';
import { when } from './time-text';

/** Labels or annotations as name = value rows. */
function Pairs({ title, pairs }: { title: string; pairs: Record<string, string> | undefined }) {
  const entries = Object.entries(pairs ?? {});
  if (entries.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <dl class="pairs">
        {entries.map(([name, value]) => (
          <div key={name}>
            <dt>
              <Outside>{name}</Outside>
            </dt>
            <dd>
              <Outside>{value}</Outside>
            </dd>
          </div>
        ))}
      </dl>
    </>
  );
}

const byNewest = (a: IncidentAlert, b: IncidentAlert) =>
  Date.parse(b.received_at) - Date.parse(a.received_at);

/** The incident's latest alerts, newest first; labels and annotations folded away. */
export function IncidentAlerts({ alerts }: { alerts: IncidentAlert[] }) {
  return (
    <section class="panel" aria-labelledby="alerts-title">
      <h2 id="alerts-title">Latest alerts</h2>
      {alerts.length === 0 ? (
        <p class="muted">No alert recorded.</p>
      ) : (
        <ol class="alert-list" data-testid="incident-alerts">
          {[...alerts].sort(byNewest).map((alert) => {
            const labels = Object.keys(alert.labels ?? {}).length;
            const annotations = Object.keys(alert.annotations ?? {}).length;
            return (
              <li key={alert.alert_id}>
                <p class="alert-line">
                  <time dateTime={alert.received_at}>{when(alert.received_at)}</time>{' '}
                  <Outside>{alert.origin}</Outside>:{' '}
                  <strong>
                    <Outside>{alert.outcome}</Outside>
                  </strong>{' '}
                  <code class="small id">
                    <Outside>{alert.alert_id}</Outside>
                  </code>{' '}
                  <OutsideLink url={alert.generator_url} testId="alert-generator">
                    Source graph
                  </OutsideLink>
                </p>
                {labels + annotations > 0 && (
                  <details>
                    <summary>
                      {labels} {labels === 1 ? 'label' : 'labels'}, {annotations}{' '}
                      {annotations === 1 ? 'annotation' : 'annotations'}
                    </summary>
                    <Pairs title="Labels" pairs={alert.labels} />
                    <Pairs title="Annotations" pairs={alert.annotations} />
                  </details>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
