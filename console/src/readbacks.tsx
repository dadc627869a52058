import { useState } from 'preact/hooks';
import { api, authHeaders, errorCodeOf, noteAccess } from './api';
import type { CatalogRow, ErrorCode, ReadbackCatalog } from './api-types';
import { JsonText, Outside } from './outside';
import { SCENE_READBACK } from './scene';
import { Loading, useLoad } from './views-common';

const AGENTS = '/api/v1/agents/';

/**
 * The catalog in one request: every GET readback and the state of the documents it reads,
 * as the service finds them (`GET /api/v1/readbacks`), without fetching each readback.
 */
async function loadCatalog(): Promise<CatalogRow[]> {
  const { items } = await api<ReadbackCatalog>('/api/v1/readbacks');
  return [...items].sort((a, b) => a.name.localeCompare(b.name));
}

const STATE_FILTERS = ['', 'present', 'missing', 'invalid'] as const;

export function ReadbacksView() {
  const { data: rows, error } = useLoad(loadCatalog, []);
  const [filter, setFilter] = useState('');
  const [query, setQuery] = useState('');
  const counts = { present: 0, missing: 0, invalid: 0 };
  for (const row of rows ?? []) counts[row.state] += 1;
  const shown = (rows ?? []).filter(
    (row) => (!filter || row.state === filter) && (!query || row.name.includes(query.trim())),
  );
  return (
    <section aria-labelledby="readbacks-title">
      <h1 id="readbacks-title">Readbacks</h1>
      <p>
        <a href="#/scene" class="button-link">
          Open the live-ops scene
        </a>
      </p>
      {!rows ? (
        <Loading error={error} />
      ) : (
        <>
          <p role="status" data-testid="catalog-counts">
            {rows.length} readbacks: {counts.present} present, {counts.missing} missing,{' '}
            {counts.invalid} invalid
          </p>
          <div class="filters">
            <div class="field">
              <label for="readback-state">State</label>
              <select
                id="readback-state"
                value={filter}
                onChange={(event) => setFilter(event.currentTarget.value)}
              >
                {STATE_FILTERS.map((state) => (
                  <option key={state} value={state}>
                    {state || 'All'}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="readback-search">Name contains</label>
              <input
                id="readback-search"
                type="search"
                value={query}
                onInput={(event) => setQuery(event.currentTarget.value)}
              />
            </div>
          </div>
          <ul class="catalog">
            {shown.map((row) => (
              <li
                key={row.name}
                class={`catalog-row readback-${row.state}`}
                data-readback={row.name}
              >
                <div class="catalog-main">
                  <a href={`#/readbacks/${encodeURIComponent(row.name)}`}>
                    <Outside>{row.name}</Outside>
                  </a>
                  <div class="small muted">
                    <Outside>{row.summary}</Outside>
                  </div>
                  {row.detail && (
                    <div class="small wrap">
                      <Outside>{row.detail}</Outside>
                    </div>
                  )}
                </div>
                <span class={`badge readback-badge-${row.state}`}>
                  <Outside>{row.state}</Outside>
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

const REDACTION = /(\[redacted-(?:ip|host|mac)\])/;

/** The service's redaction markers in a piece of the document, marked. */
function markRedactions(piece: string) {
  return piece.split(REDACTION).map((part, index) =>
    index % 2 === 1 ? (
      <mark key={index} class="redacted" title="redacted by the service">
        {part}
      </mark>
    ) : (
      part
    ),
  );
}

/** The document as served (outside text), its strings isolated, redactions marked. */
function Highlighted({ text }: { text: string }) {
  return (
    <pre class="json" data-testid="readback-document">
      <JsonText text={text} mark={markRedactions} />
    </pre>
  );
}

interface Served {
  status: number;
  etag: string | null;
  text: string;
}

async function loadServed(name: string): Promise<Served> {
  const response = await fetch(`${AGENTS}${encodeURIComponent(name)}`, {
    headers: { accept: 'application/json', ...authHeaders() },
  });
  const raw = await response.text();
  let text = raw;
  let code: ErrorCode | undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    text = JSON.stringify(parsed, null, 2);
    code = errorCodeOf(parsed);
  } catch {
    // shown as served
  }
  if (!response.ok) noteAccess(response.status, code);
  return { status: response.status, etag: response.headers.get('etag'), text };
}

export function ReadbackDocumentView({ name }: { name: string }) {
  const { data, error, reload } = useLoad(() => loadServed(name), [name]);
  const redactions = data ? data.text.split(REDACTION).length >> 1 : 0;
  return (
    <section aria-labelledby="readback-title">
      <p>
        <a href="#/readbacks">← Readbacks</a>
      </p>
      <h1 id="readback-title" class="wrap">
        <Outside>{name}</Outside>
      </h1>
      {name === SCENE_READBACK && (
        <p>
          <a href="#/scene">See it as the animated scene</a>
        </p>
      )}
      {!data ? (
        <Loading error={error} />
      ) : (
        <>
          <p class="muted small">
            <code>
              GET {AGENTS}
              <Outside>{name}</Outside>
            </code>{' '}
            answered {data.status}
            {data.etag && (
              <>
                , ETag <Outside>{data.etag}</Outside>
              </>
            )}
            .{' '}
            {redactions > 0 && (
              <span data-testid="redaction-count">
                {redactions} value(s) redacted by the service.
              </span>
            )}{' '}
            <button type="button" class="link" onClick={reload}>
              Reload
            </button>
          </p>
          {data.status === 404 && <p class="error">Missing: no document for this readback.</p>}
          {data.status === 500 && <p class="error">Invalid: the document could not be served.</p>}
          <Highlighted text={data.text} />
        </>
      )}
    </section>
  );
}
