import type { Db } from '../../ports/store.js';
import { countsFromOccurrences, escalationLevel } from '../errtracker/anomaly-frequency.js';
import { alertTimesOf } from '../incidents/alert-records.js';
import { type IncidentRow, relatedIncidentIds } from '../incidents/incident-records.js';
import { ALERT_TYPES, lookupAlertName } from '../intake/alert-types.js';
import { executionsOfIncidents } from '../oplog/operation-reads.js';
import type { AnalysisRequest } from './analysis-request.js';
import {
  type AnalysisSubject,
  type RepairHistory,
  SEVERITIES,
  type Severity,
} from './analysis-types.js';

/** What the service has seen of the same problem before: alert times and repair outcomes. */
export interface History {
  occurrences: number[];
  repairs: { success: boolean; playbook: string | null }[];
}

const DAY_MS = 24 * 3_600_000;
/** Related incidents and alerts read per analysis: enough for the 30-day counts of a busy one. */
const HISTORY_LIMIT = 5_000;

const unique = <T>(values: readonly T[]) => [...new Set(values)];

/** An alert name's type from the static table; a name that is itself a built-in type is kept. */
function alertTypeOf(name: string): string | undefined {
  if ((ALERT_TYPES as readonly string[]).includes(name)) return name;
  return lookupAlertName(name)?.alertType;
}

function repairHistory(history: History): RepairHistory {
  const succeeded = history.repairs.filter((repair) => repair.success).length;
  return {
    attempts: history.repairs.length,
    succeeded,
    failed: history.repairs.length - succeeded,
    playbooks: unique(
      history.repairs.flatMap((repair) => (repair.playbook ? [repair.playbook] : [])),
    ),
  };
}

function frequencyOf(history: History, now: number) {
  const counts = countsFromOccurrences(history.occurrences, now, history.repairs.length);
  return { ...counts, escalation_level: escalationLevel(counts) };
}

/** The subject of an analysis: from the incident when one is named, else from the request. */
export function subjectOf(
  request: AnalysisRequest,
  incident: IncidentRow | undefined,
  history: History,
  now: number,
): AnalysisSubject {
  const context = request.context ?? {};
  const names = request.alert_names ?? [];
  const requestTypes = names.flatMap((name) => alertTypeOf(name) ?? []);
  const base = {
    frequency: frequencyOf(history, now),
    repairs: repairHistory(history),
    context,
  };
  if (incident) {
    return {
      ...base,
      incident_id: incident.id,
      severity: SEVERITIES.includes(incident.severity as Severity)
        ? (incident.severity as Severity)
        : (request.severity ?? 'P2'),
      namespace: incident.namespace,
      affected_services: unique([
        incident.workload || incident.target_resource,
        ...(request.affected_services ?? []),
      ]),
      alert_names: unique([incident.alert_name, ...names]),
      alert_types: unique([incident.alert_type, ...requestTypes]),
      hit_count: incident.hit_count,
      message: incident.message || null,
      labels: JSON.parse(incident.labels) as Record<string, string>,
    };
  }
  const hits = Number(context.hit_count);
  return {
    ...base,
    incident_id: null,
    severity: request.severity ?? 'P2',
    namespace: typeof context.namespace === 'string' ? context.namespace : 'default',
    affected_services: unique(request.affected_services ?? []),
    alert_names: unique(names),
    alert_types: unique(requestTypes),
    hit_count: Number.isInteger(hits) && hits > 0 ? hits : 1,
    message: typeof context.message === 'string' ? context.message : null,
    labels: {},
  };
}

/**
 * The history of the same problem: incidents with the incident's fingerprint, or (manual
 * requests) incidents of the affected services; their alerts in the last 30 days and their
 * real repairs (dry runs changed nothing, so they are not counted).
 */
export async function loadHistory(
  db: Db,
  request: AnalysisRequest,
  incident: IncidentRow | undefined,
  now: number,
): Promise<History> {
  let ids: string[];
  if (incident) {
    ids = await relatedIncidentIds(db, { fingerprint: incident.fingerprint }, HISTORY_LIMIT);
  } else if (request.affected_services?.length) {
    ids = await relatedIncidentIds(db, { workloads: request.affected_services }, HISTORY_LIMIT);
  } else return { occurrences: [], repairs: [] };
  if (ids.length === 0) return { occurrences: [], repairs: [] };
  const occurrences = await alertTimesOf(db, ids, now - 30 * DAY_MS, HISTORY_LIMIT);
  const repairs = await executionsOfIncidents(db, ids);
  return {
    occurrences,
    repairs: repairs.flatMap((row) => {
      const context = JSON.parse(row.context) as { executor?: unknown; playbook_id?: unknown };
      if (context.executor === 'dry-run') return [];
      const playbook = typeof context.playbook_id === 'string' ? context.playbook_id : null;
      return [{ success: row.success === 1, playbook }];
    }),
  };
}
