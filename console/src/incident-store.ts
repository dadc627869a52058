/**
 * The incidents the Now view holds: what the lists answered, kept current from the feed's own
 * fields, so that a storm of events costs no request per event. Bounded: past `limit` the least
 * urgent are dropped (an event about one of them asks for it again). Free of the DOM.
 */
import type { FeedEvent, FeedEventOf, Incident } from './api-types.js';
import { sortedByUrgency } from './severity.js';

/** What a row of the Now view shows: an incident as listed, or as its creation event tells it. */
export type IncidentRow = Pick<
  Incident,
  | 'id'
  | 'status'
  | 'severity'
  | 'alert_name'
  | 'namespace'
  | 'workload'
  | 'fingerprint'
  | 'hit_count'
  | 'first_seen'
  | 'last_seen'
  | 'approval_id'
>;

/** What an event meant for the store: shown, about an incident it must read, or nothing. */
export type Applied = 'changed' | 'unknown' | 'ignored';

/** The status each lifecycle event leaves (CONTRACT, Incident lifecycle). */
const STATUS_AFTER: Record<string, string> = {
  'incident.acknowledged': 'acknowledged',
  'incident.resolved': 'resolved',
  'incident.reopened': 'open',
};

const later = (a: string, b: string) => ((Date.parse(a) || 0) >= (Date.parse(b) || 0) ? a : b);

/** An incident.created event as a row, or null when it lacks the fields a row shows. */
export function rowOfCreated(event: FeedEventOf<'incident.created'>): IncidentRow | null {
  if (!event.incident_id || !event.alert_name || !event.severity) return null;
  return {
    id: event.incident_id,
    status: event.status ?? 'open',
    severity: event.severity,
    alert_name: event.alert_name,
    namespace: event.namespace ?? '',
    workload: event.workload ?? '',
    fingerprint: event.fingerprint ?? '',
    hit_count: event.hit_count ?? 1,
    first_seen: event.at,
    last_seen: event.at,
    approval_id: event.approval_id ?? null,
  };
}

export class IncidentStore {
  private readonly rows = new Map<string, IncidentRow>();

  constructor(private readonly limit = 500) {}

  get size(): number {
    return this.rows.size;
  }

  get(id: string): IncidentRow | undefined {
    return this.rows.get(id);
  }

  /**
   * Rows read from the service. A row the feed changed meanwhile keeps what is newer: the
   * later last-seen and the higher hit count; the read's status wins unless the held row was
   * seen strictly later (the read was answered before that alert).
   */
  merge(listed: IncidentRow[]): void {
    for (const item of listed) {
      const held = this.rows.get(item.id);
      if (!held) {
        this.rows.set(item.id, pick(item));
        continue;
      }
      const heldIsNewer = (Date.parse(held.last_seen) || 0) > (Date.parse(item.last_seen) || 0);
      const newer = heldIsNewer ? held : item;
      this.rows.set(item.id, {
        ...pick(item),
        status: newer.status,
        hit_count: Math.max(held.hit_count, item.hit_count),
        last_seen: later(held.last_seen, item.last_seen),
      });
    }
  }

  /** Applies one feed event; `unknown` names an incident the caller should read. */
  apply(event: FeedEvent): Applied {
    if (!event.type.startsWith('incident.') || !('incident_id' in event)) return 'ignored';
    const id = event.incident_id;
    if (!id) return 'ignored';
    const held = this.rows.get(id);
    if (event.type === 'incident.created') {
      const row = rowOfCreated(event);
      if (!row) return 'unknown';
      this.merge([row]);
      return 'changed';
    }
    if (event.type === 'incident.converged') {
      if (!held) return 'unknown';
      this.rows.set(id, {
        ...held,
        hit_count: Math.max(held.hit_count, event.hit_count ?? held.hit_count),
        last_seen: later(held.last_seen, event.at),
      });
      return 'changed';
    }
    const status = STATUS_AFTER[event.type];
    if (!status) return 'ignored';
    // A reopened incident unknown here may now rank among the first: read it. An unknown one
    // acknowledged or resolved keeps its place in the order, outside what is held.
    if (!held) return event.type === 'incident.reopened' ? 'unknown' : 'ignored';
    this.rows.set(id, { ...held, status });
    return 'changed';
  }

  /** The held rows that pass `keep`, most urgent first. */
  ranked(keep: (row: IncidentRow) => boolean = () => true): IncidentRow[] {
    return sortedByUrgency([...this.rows.values()].filter(keep));
  }

  /**
   * Drops the least urgent rows past the limit (or `limit`, when more are shown); call once per
   * batch of events, not per event.
   */
  trim(limit = this.limit): void {
    if (this.rows.size <= limit) return;
    for (const row of this.ranked().slice(limit)) this.rows.delete(row.id);
  }

  clear(): void {
    this.rows.clear();
  }
}

/** Only a row's own fields: a listed incident carries more than a row holds. */
function pick(item: IncidentRow): IncidentRow {
  return {
    id: item.id,
    status: item.status,
    severity: item.severity,
    alert_name: item.alert_name,
    namespace: item.namespace,
    workload: item.workload,
    fingerprint: item.fingerprint,
    hit_count: item.hit_count,
    first_seen: item.first_seen,
    last_seen: item.last_seen,
    approval_id: item.approval_id,
  };
}
