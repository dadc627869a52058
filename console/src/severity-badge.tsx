import { Outside } from './outside';

/**
 * An incident's severity as a badge. The stylesheet (severity.css) gives P0 to P3 each a
 * colour, a weight and a marker shape, so that they differ for colour-blind readers too.
 */
export function SeverityBadge({ severity }: { severity: string }) {
  return (
    <span class={`badge severity-${severity}`} data-severity={severity}>
      <Outside>{severity}</Outside>
    </span>
  );
}
