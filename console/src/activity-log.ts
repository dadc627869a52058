/**
 * The Activity list's memory: the feed's events of the last hour, newest first, bounded, with
 * an analysis's progress kept as one line per task and an incident's repeats as one line per
 * incident (each updated in place), and the names of the incidents they are about. Free of the
 * DOM so that Node tests the grouping and the bounds; activity-feed.ts feeds and keeps it.
 */
import type { FeedEvent } from './api-types.js';

export interface ActivityEntry {
  /** Stable across updates in place: `analysis:<task>`, `hits:<incident>`, or a sequence. */
  key: string;
  at: string;
  event: FeedEvent;
}

export interface IncidentName {
  alert_name: string;
  namespace: string;
  severity?: string;
}

const HOUR_MS = 60 * 60 * 1000;

/** Events that replace their own earlier line instead of adding one. */
function groupKey(event: FeedEvent): string | null {
  if (event.type === 'analysis.updated' && event.task_id) return `analysis:${event.task_id}`;
  if (event.type === 'incident.converged' && event.incident_id) {
    return `hits:${event.incident_id}`;
  }
  return null;
}

/** A Map used as a bounded queue: a key set again moves to the newest end. */
function setNewest<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > limit) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) return;
    map.delete(oldest);
  }
}

export class ActivityLog {
  /** Oldest first, so that the bound and the hour drop from the front. */
  private readonly lines = new Map<string, ActivityEntry>();
  private readonly names = new Map<string, IncidentName>();
  private readonly approvalIncident = new Map<string, string>();
  private sequence = 0;
  private sinceForget = 0;

  constructor(
    private readonly limit = 300,
    private readonly spanMs = HOUR_MS,
  ) {}

  add(event: FeedEvent, now: number): void {
    this.noteNames(event);
    const key = groupKey(event) ?? `event:${++this.sequence}`;
    setNewest(this.lines, key, { key, at: event.at, event }, this.limit);
    // The hour is enforced when read, and here only now and then: scanning the front of a Map
    // that had many lines moved up passes over their deleted slots each time.
    if (++this.sinceForget >= 100) this.forgetBefore(now);
  }

  /** Names learnt elsewhere (a list the Now view read): the lines about them use the names. */
  noteIncident(id: string, name: IncidentName): void {
    setNewest(this.names, id, name, this.limit * 2);
  }

  noteApproval(approvalId: string, incidentId: string): void {
    setNewest(this.approvalIncident, approvalId, incidentId, this.limit * 2);
  }

  incidentName(id: string | null | undefined): IncidentName | undefined {
    return id ? this.names.get(id) : undefined;
  }

  incidentOfApproval(approvalId: string | null | undefined): string | undefined {
    return approvalId ? this.approvalIncident.get(approvalId) : undefined;
  }

  /** The lines of the last hour, newest first. */
  entries(now: number): ActivityEntry[] {
    this.forgetBefore(now);
    return [...this.lines.values()].reverse();
  }

  /** What a reload needs to show the same list (kept in sessionStorage). */
  toJSON(): { entries: ActivityEntry[]; names: [string, IncidentName][]; approvals: string[][] } {
    return {
      entries: [...this.lines.values()],
      names: [...this.names],
      approvals: [...this.approvalIncident],
    };
  }

  /** A log from `toJSON()`'s output; anything malformed is left out. */
  static from(saved: unknown, now: number, limit?: number): ActivityLog {
    const log = new ActivityLog(limit);
    if (!saved || typeof saved !== 'object') return log;
    const { entries, names, approvals } = saved as Record<string, unknown>;
    for (const entry of Array.isArray(entries) ? entries : []) {
      const event = (entry as ActivityEntry | null)?.event;
      if (typeof event?.type === 'string' && typeof event.at === 'string') log.add(event, now);
    }
    for (const pair of Array.isArray(names) ? names : []) {
      const [id, name] = Array.isArray(pair) ? pair : [];
      if (typeof id === 'string' && typeof name?.alert_name === 'string') {
        log.noteIncident(id, {
          alert_name: name.alert_name,
          namespace: String(name.namespace ?? ''),
          severity: typeof name.severity === 'string' ? name.severity : undefined,
        });
      }
    }
    for (const pair of Array.isArray(approvals) ? approvals : []) {
      const [approvalId, incidentId] = Array.isArray(pair) ? pair : [];
      if (typeof approvalId === 'string' && typeof incidentId === 'string') {
        log.noteApproval(approvalId, incidentId);
      }
    }
    return log;
  }

  private noteNames(event: FeedEvent): void {
    if (event.type === 'incident.created' && event.incident_id && event.alert_name) {
      this.noteIncident(event.incident_id, {
        alert_name: event.alert_name,
        namespace: event.namespace ?? '',
        severity: event.severity,
      });
    }
    if (
      'approval_id' in event &&
      'incident_id' in event &&
      event.approval_id &&
      event.incident_id
    ) {
      this.noteApproval(event.approval_id, event.incident_id);
    }
  }

  private forgetBefore(now: number): void {
    this.sinceForget = 0;
    const oldest = now - this.spanMs;
    for (const [key, entry] of this.lines) {
      // Oldest first: the first line young enough ends the scan.
      if ((Date.parse(entry.at) || 0) >= oldest) return;
      this.lines.delete(key);
    }
  }
}
