import type { ComponentChildren } from 'preact';
import { Outside } from './outside';

/**
 * Where each record's page is. Every id the console shows is a link to its page, so that any
 * page leads on to the next (CONTRACT, Operator console; issue: "links run one way").
 */
export const hrefOf = {
  incident: (id: string) => `#/incidents/${encodeURIComponent(id)}`,
  approval: (id: string) => `#/approvals/${encodeURIComponent(id)}`,
  analysis: (taskId: string) => `#/analysis/${encodeURIComponent(taskId)}`,
  silence: (id: string) => `#/silences?silence=${encodeURIComponent(id)}`,
} as const;

export type RecordKind = keyof typeof hrefOf;

/**
 * A link to a record's page. Without children it shows the id itself (outside text, isolated,
 * in code type); with children, those, the id then only in the title.
 */
export function RecordLink({
  kind,
  id,
  children,
}: {
  kind: RecordKind;
  id: string;
  children?: ComponentChildren;
}) {
  return (
    <a href={hrefOf[kind](id)} data-record={kind} data-record-id={id}>
      {children ?? (
        <code class="id">
          <Outside>{id}</Outside>
        </code>
      )}
    </a>
  );
}
