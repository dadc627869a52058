/**
 * The Now view's filters, kept in the location's hash (`#/?q=disk&severity=P0`) so that a
 * filtered view is a link, and the list call they make. Free of the DOM so that Node tests
 * the round trip.
 */
import { isSeverity, type Severity } from './severity.js';

/** Which incidents: the unresolved ones by default, one status, or every one (history). */
export const SHOW = ['unresolved', 'open', 'acknowledged', 'resolved', 'all'] as const;
export type Show = (typeof SHOW)[number];
export const ORDERS = ['urgency', 'recent'] as const;
export type Order = (typeof ORDERS)[number];

export interface NowFilters {
  /** Search over alert name, namespace, workload, labels and ids (CONTRACT: ≤ 200 characters). */
  q: string;
  severity: Severity | '';
  show: Show;
  /** ISO date-times bounding the incidents' last seen; empty when open. */
  since: string;
  until: string;
  order: Order;
}

export const SEARCH_MAX = 200;

const STATUS_OF: Record<Show, string | null> = {
  unresolved: 'open,acknowledged',
  open: 'open',
  acknowledged: 'acknowledged',
  resolved: 'resolved',
  all: null,
};

/** History (resolved incidents, a time range) reads newest first; what is on fire, by urgency. */
export function defaultOrder(filters: Pick<NowFilters, 'show' | 'since' | 'until'>): Order {
  const history = filters.show === 'resolved' || filters.show === 'all';
  return history || filters.since || filters.until ? 'recent' : 'urgency';
}

/**
 * The filters after a change. An order left at its default follows the change (choosing the
 * history reads newest first); an order chosen by hand stays.
 */
export function changed(before: NowFilters, change: Partial<NowFilters>): NowFilters {
  const next = { ...before, ...change };
  if (change.order !== undefined || before.order !== defaultOrder(before)) return next;
  return { ...next, order: defaultOrder(next) };
}

/** A moment as ISO text, or '' when it is none (a hand-edited link). */
function isoOrEmpty(value: string | null): string {
  if (!value) return '';
  const time = Date.parse(value);
  return Number.isNaN(time) ? '' : new Date(time).toISOString();
}

function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return values.find((known) => known === value);
}

export function filtersFrom(query: URLSearchParams): NowFilters {
  const severity = query.get('severity');
  const base = {
    q: (query.get('q') ?? '').trim().slice(0, SEARCH_MAX),
    severity: isSeverity(severity) ? severity : ('' as const),
    show: oneOf(SHOW, query.get('show')) ?? 'unresolved',
    since: isoOrEmpty(query.get('since')),
    until: isoOrEmpty(query.get('until')),
  };
  return { ...base, order: oneOf(ORDERS, query.get('order')) ?? defaultOrder(base) };
}

/** The hash of a filtered Now view; defaults are left out, so the plain view is `#/`. */
export function hashOf(filters: NowFilters): string {
  const query = new URLSearchParams();
  if (filters.q) query.set('q', filters.q);
  if (filters.severity) query.set('severity', filters.severity);
  if (filters.show !== 'unresolved') query.set('show', filters.show);
  if (filters.since) query.set('since', filters.since);
  if (filters.until) query.set('until', filters.until);
  if (filters.order !== defaultOrder(filters)) query.set('order', filters.order);
  const text = query.toString();
  return text ? `#/?${text}` : '#/';
}

export const PAGE_SIZE = 50;

/** The list call for the filters, from `cursor` when paging on. */
export function incidentsPath(filters: NowFilters, cursor?: string | null): string {
  const query = new URLSearchParams();
  const status = STATUS_OF[filters.show];
  if (status) query.set('status', status);
  if (filters.severity) query.set('severity', filters.severity);
  if (filters.q) query.set('q', filters.q);
  if (filters.since) query.set('since', filters.since);
  if (filters.until) query.set('until', filters.until);
  query.set('order', filters.order);
  query.set('limit', String(PAGE_SIZE));
  if (cursor) query.set('cursor', cursor);
  // Commas stay readable in the address: the service splits status on them.
  return `/api/v1/incidents?${query.toString().replaceAll('%2C', ',')}`;
}

/**
 * Whether live events can keep the list as the service would answer it: true for the
 * unresolved incidents by urgency (severity and status are in every event), false for a
 * search or a time range, which the view shows as read and offers to read again.
 */
export function isLive(filters: NowFilters): boolean {
  return !filters.q && !filters.since && !filters.until && filters.order === 'urgency';
}

/** Whether a held row belongs in a live list with these filters. */
export function keeps(filters: NowFilters, row: { status: string; severity: string }): boolean {
  const status = STATUS_OF[filters.show];
  if (status && !status.split(',').includes(row.status)) return false;
  return !filters.severity || row.severity === filters.severity;
}

/** An ISO moment as a `datetime-local` input's value, in the reader's time zone. */
export function localInputValue(iso: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(
    date.getHours(),
  )}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` input's value (the reader's time zone) as ISO; '' when empty. */
export function isoFromLocalInput(value: string): string {
  // Without a zone, `new Date('2026-11-26T03:00')` reads the reader's local time.
  const time = value ? new Date(value).getTime() : Number.NaN;
  return Number.isNaN(time) ? '' : new Date(time).toISOString();
}
