import { Outside } from './outside';

const text = (value: unknown) => (typeof value === 'string' ? value : null);

/**
 * Why alerts joined this incident, from the detail's `grouping`: the fingerprint's inputs, its
 * rule, where the alert type came from and the merge rule. Unknown keys are shown as they are.
 */
export function IncidentGrouping({ grouping }: { grouping: Record<string, unknown> }) {
  const inputs = grouping.inputs && typeof grouping.inputs === 'object' ? grouping.inputs : {};
  const rule = text(grouping.fingerprint_rule);
  const merge = text(grouping.merge_rule);
  const typeSource = text(grouping.alert_type_source);
  return (
    <section
      class="panel grouping"
      aria-labelledby="grouping-title"
      data-testid="incident-grouping"
    >
      <h2 id="grouping-title">Why these alerts are grouped</h2>
      <p>
        Alerts with the same fingerprint join one incident. Its inputs:{' '}
        {Object.entries(inputs).map(([name, value], index) => (
          <span key={name}>
            {index > 0 ? ', ' : ''}
            <code>
              <Outside>{name}</Outside>=<Outside>{String(value)}</Outside>
            </code>
          </span>
        ))}
        {typeSource && (
          <>
            {' '}
            (alert type from <Outside>{typeSource}</Outside>)
          </>
        )}
        .
      </p>
      {rule && (
        <p>
          Fingerprint: <Outside>{rule}</Outside>.
        </p>
      )}
      {merge && (
        <p>
          Merge rule: <Outside>{merge}</Outside>.
        </p>
      )}
    </section>
  );
}
