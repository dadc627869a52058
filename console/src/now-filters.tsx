import { useEffect, useState } from 'preact/hooks';
import {
  changed,
  hashOf,
  isoFromLocalInput,
  localInputValue,
  type NowFilters,
  ORDERS,
  type Order,
  SEARCH_MAX,
  SHOW,
  type Show,
} from './now-query';
import { SEVERITIES, type Severity } from './severity';

const SHOW_TEXT: Record<Show, string> = {
  unresolved: 'Unresolved',
  open: 'Open',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  all: 'All (history)',
};
const ORDER_TEXT: Record<Order, string> = { urgency: 'Most urgent', recent: 'Most recent' };

/** Every change is a new hash: a filtered view is a link, and Back undoes a filter. */
function go(filters: NowFilters, change: Partial<NowFilters>) {
  location.hash = hashOf(changed(filters, change));
}

/**
 * The Now view's search and filters: text over names, namespaces, labels and ids (sent on
 * Enter), severity (P0 first), which statuses, a time range over history, and the order.
 */
export function NowFilterForm({ filters }: { filters: NowFilters }) {
  const [q, setQ] = useState(filters.q);
  const [since, setSince] = useState(localInputValue(filters.since));
  const [until, setUntil] = useState(localInputValue(filters.until));
  // A link or Back changes the filters under the form: show them.
  useEffect(() => setQ(filters.q), [filters.q]);
  useEffect(() => setSince(localInputValue(filters.since)), [filters.since]);
  useEffect(() => setUntil(localInputValue(filters.until)), [filters.until]);

  const submit = (event: Event) => {
    event.preventDefault();
    go(filters, { q: q.trim(), since: isoFromLocalInput(since), until: isoFromLocalInput(until) });
  };
  const change = (next: Partial<NowFilters>) => go(filters, next);
  const filtered = hashOf(filters) !== '#/';

  return (
    <form class="filters now-filters" aria-label="Filter incidents" onSubmit={submit}>
      <div class="field field-search">
        <label for="now-q">Search</label>
        <input
          id="now-q"
          type="search"
          value={q}
          maxLength={SEARCH_MAX}
          placeholder="alert, namespace, label, id"
          onInput={(event) => setQ(event.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="now-severity">Severity</label>
        <select
          id="now-severity"
          value={filters.severity}
          onChange={(event) => change({ severity: event.currentTarget.value as Severity | '' })}
        >
          <option value="">All</option>
          {SEVERITIES.map((severity) => (
            <option key={severity} value={severity}>
              {severity}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="now-show">Status</label>
        <select
          id="now-show"
          value={filters.show}
          onChange={(event) => change({ show: event.currentTarget.value as Show })}
        >
          {SHOW.map((show) => (
            <option key={show} value={show}>
              {SHOW_TEXT[show]}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="now-order">Order</label>
        <select
          id="now-order"
          value={filters.order}
          onChange={(event) => change({ order: event.currentTarget.value as Order })}
        >
          {ORDERS.map((order) => (
            <option key={order} value={order}>
              {ORDER_TEXT[order]}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-actions">
        <button type="submit">Search</button>
        {filtered && (
          <a class="clear" href="#/">
            Clear
          </a>
        )}
      </div>
      <details class="range" open={!!(filters.since || filters.until)}>
        <summary>Time range</summary>
        <div class="range-fields">
          <div class="field">
            <label for="now-since">Seen from</label>
            <input
              id="now-since"
              type="datetime-local"
              value={since}
              onInput={(event) => setSince(event.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="now-until">Seen until</label>
            <input
              id="now-until"
              type="datetime-local"
              value={until}
              onInput={(event) => setUntil(event.currentTarget.value)}
            />
          </div>
        </div>
      </details>
    </form>
  );
}
