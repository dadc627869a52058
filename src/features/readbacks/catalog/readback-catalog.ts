import { COMMITTED_READBACKS, RAW_READBACKS, SOURCE_DOCUMENTS } from './committed-readbacks.js';
import { LIVE_READBACKS } from './live-readbacks.js';
import { POST_READBACKS } from './post-readbacks.js';
import type { ReadbackEntry } from './readback-types.js';

/** Every readback path under `/agents`, in the order of the spec's four lists. */
export const READBACK_CATALOG: readonly ReadbackEntry[] = [
  ...COMMITTED_READBACKS,
  ...RAW_READBACKS,
  ...LIVE_READBACKS,
  ...POST_READBACKS,
];

/**
 * Every committed file name the catalog may read: the committed and RAW readbacks, the inputs
 * of the live and POST ones, and the source documents. What `npm run readbacks -- list` shows.
 */
export function committedDocumentNames(
  catalog: readonly ReadbackEntry[] = READBACK_CATALOG,
): string[] {
  const names = new Set<string>();
  for (const entry of catalog) {
    if (entry.kind === 'committed' || entry.kind === 'raw') names.add(entry.name);
    else for (const input of entry.inputs) names.add(input);
    if (entry.kind === 'committed')
      for (const source of entry.sources ?? []) names.add(source.readback);
  }
  for (const name of SOURCE_DOCUMENTS) names.add(name);
  return [...names];
}

/** Whether a committed file must exist for its readback to answer 200. */
export function requiredDocumentNames(
  catalog: readonly ReadbackEntry[] = READBACK_CATALOG,
): Set<string> {
  const required = new Set<string>();
  for (const entry of catalog) {
    if (entry.kind === 'committed' || entry.kind === 'raw') required.add(entry.name);
    if ((entry.kind === 'live' || entry.kind === 'post') && entry.errors.includes(404)) {
      for (const input of entry.inputs) required.add(input);
    }
  }
  return required;
}
