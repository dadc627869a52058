import fs from 'node:fs';
import { READBACK_CATALOG, requiredDocumentNames } from './catalog/readback-catalog.js';
import type { ReadbackEntry } from './catalog/readback-types.js';
import { checkDocument } from './commit-readback.js';
import { documentFile } from './readback-files.js';

export type DocumentState = 'present' | 'missing' | 'invalid';

/** A committed document as the service would read it: there, absent, or refused (and why). */
export function documentState(
  dir: string,
  name: string,
): { state: DocumentState; reason?: string } {
  const file = documentFile(dir, name);
  if (!fs.existsSync(file)) return { state: 'missing' };
  const reason = checkDocument(dir, name, fs.readFileSync(file));
  return reason ? { state: 'invalid', reason } : { state: 'present' };
}

export interface CatalogState {
  name: string;
  kind: ReadbackEntry['kind'];
  summary: string;
  path: string;
  state: DocumentState;
  /** The documents it reads that are not present, and why. */
  detail: string;
}

/**
 * Every GET readback with the state of what it reads: a committed or RAW readback its own
 * document; a live one its inputs (missing only when it needs them to answer). Read from the
 * files, without computing anything, so the console can list the catalog in one request.
 */
export function catalogStates(
  dir: string,
  catalog: readonly ReadbackEntry[] = READBACK_CATALOG,
): CatalogState[] {
  const required = requiredDocumentNames(catalog);
  const states = new Map<string, { state: DocumentState; reason?: string }>();
  const stateOf = (name: string) => {
    let known = states.get(name);
    if (!known) {
      known = documentState(dir, name);
      states.set(name, known);
    }
    return known;
  };
  const rows: CatalogState[] = [];
  for (const entry of catalog) {
    if (entry.kind === 'post') continue;
    const documents = entry.kind === 'live' ? entry.inputs : [entry.name];
    const problems = documents
      .map((name) => ({ name, ...stateOf(name) }))
      .filter(
        (doc) => doc.state === 'invalid' || (doc.state === 'missing' && required.has(doc.name)),
      );
    const state: DocumentState = problems.some((doc) => doc.state === 'invalid')
      ? 'invalid'
      : problems.length > 0
        ? 'missing'
        : 'present';
    rows.push({
      name: entry.name,
      kind: entry.kind,
      summary: entry.summary,
      path: `/api/v1/agents/${entry.name}`,
      state,
      detail: problems
        .map((doc) => `${doc.name}: ${doc.state}${doc.reason ? ` (${doc.reason})` : ''}`)
        .join('; '),
    });
  }
  return rows;
}
