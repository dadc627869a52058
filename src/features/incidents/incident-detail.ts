import { Type } from 'typebox';
import { NullableString } from '../../http/schema-types.js';
import type { Db } from '../../ports/store.js';
import { ownValue, setOwn } from '../../support/own-value.js';
import { recentAlertsOf } from './alert-records.js';
import { findIncident } from './incident-records.js';
import { timelineOf } from './incident-timeline-records.js';
import { incidentView } from './incident-view.js';

export const IncidentSummary = Type.Object({
  id: Type.String(),
  status: Type.String(),
  severity: Type.String(),
  alert_name: Type.String(),
  alert_type: Type.String(),
  source: Type.String(),
  target_resource: Type.String(),
  namespace: Type.String(),
  workload: Type.String(),
  fingerprint: Type.String(),
  hit_count: Type.Integer(),
  first_seen: Type.String({ format: 'date-time' }),
  last_seen: Type.String({ format: 'date-time' }),
  approval_id: NullableString,
});

const FreeFormObject = Type.Record(Type.String(), Type.Unknown());
const StringMap = Type.Record(Type.String(), Type.String());

export const IncidentDetail = Type.Object({
  ...IncidentSummary.properties,
  message: Type.String(),
  labels: FreeFormObject,
  annotations: FreeFormObject,
  grouping: Type.Object({}, { additionalProperties: true }),
  acknowledged_by: NullableString,
  acknowledged_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  resolved_by: NullableString,
  resolved_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  reopen_count: Type.Integer(),
  runbook_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'annotation `runbook_url`, else `runbook`, as stored (not checked to be a link); else null',
  }),
  generator_url: Type.Union([Type.String(), Type.Null()], {
    description: 'the `generatorURL` of the newest recorded alert that had one, as sent; else null',
  }),
  timeline: Type.Array(
    Type.Object({
      at: Type.String({ format: 'date-time' }),
      event: Type.String({ description: 'opened, acknowledged, resolved or reopened' }),
      actor: Type.String(),
    }),
  ),
  recent_alerts: Type.Array(
    Type.Object({
      alert_id: Type.String(),
      origin: Type.String(),
      outcome: Type.String(),
      received_at: Type.String({ format: 'date-time' }),
      labels: StringMap,
      annotations: StringMap,
      generator_url: NullableString,
    }),
    { description: 'the latest 20 alerts, newest first' },
  ),
});

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** How many of its latest alerts an incident shows. */
const RECENT_ALERTS = 20;

/** What the read API shows of a recorded alert's payload (a FlatAlert, or null in old rows). */
interface RecordedAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  severity: string | undefined;
  generator_url: string | null;
}

function stringsOf(value: unknown): Record<string, string> {
  const strings: Record<string, string> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return strings;
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'string') setOwn(strings, key, item);
  }
  return strings;
}

function recordedAlert(payload: string): RecordedAlert {
  let alert: unknown;
  try {
    alert = JSON.parse(payload);
  } catch {
    alert = null;
  }
  const fields =
    typeof alert === 'object' && alert !== null ? (alert as Record<string, unknown>) : {};
  return {
    labels: stringsOf(fields.labels),
    annotations: stringsOf(fields.annotations),
    severity: typeof fields.severity === 'string' ? fields.severity : undefined,
    generator_url: typeof fields.generator_url === 'string' ? fields.generator_url : null,
  };
}

/** CONTRACT, Operator console: the runbook is annotation `runbook_url`, else `runbook`. */
function runbookOf(annotations: Record<string, string>): string | null {
  for (const name of ['runbook_url', 'runbook']) {
    const value = ownValue(annotations, name);
    if (value !== undefined && value.trim() !== '') return value;
  }
  return null;
}

/**
 * An incident as `GET /incidents/{id}` and the operators' moves answer it: the read view, its
 * lifecycle (CONTRACT, Incident lifecycle) with the timeline, and its latest alerts; with the
 * labels a silence is matched against (CONTRACT, Silences: its newest alert's labels and
 * severity as sent, and the incident's name, namespace, alert type and workload).
 */
export async function incidentDetail(db: Db, id: string) {
  const row = await findIncident(db, id);
  if (!row) return undefined;
  const [timeline, rows] = await Promise.all([
    timelineOf(db, id),
    recentAlertsOf(db, id, RECENT_ALERTS),
  ]);
  const alerts = rows.map(({ payload, ...alert }) => ({ ...alert, ...recordedAlert(payload) }));
  const view = incidentView(row);
  const annotations = stringsOf(view.annotations);
  const newest = alerts[0];
  const labels =
    newest && Object.keys(newest.labels).length > 0 ? newest.labels : stringsOf(view.labels);
  return {
    detail: {
      ...view,
      acknowledged_by: row.acknowledged_by,
      acknowledged_at: isoOrNull(row.acknowledged_at),
      resolved_by: row.resolved_by,
      resolved_at: isoOrNull(row.resolved_at),
      reopen_count: Number(row.reopen_count),
      runbook_url: runbookOf(annotations),
      generator_url: alerts.find((alert) => alert.generator_url !== null)?.generator_url ?? null,
      timeline,
      recent_alerts: alerts.map(({ severity: _severity, ...alert }) => ({
        ...alert,
        received_at: new Date(alert.received_at).toISOString(),
      })),
    },
    silenceLabels: {
      ...labels,
      alertname: row.alert_name,
      severity: newest?.severity ?? ownValue(labels, 'severity') ?? row.severity,
      namespace: row.namespace,
      alert_type: row.alert_type,
      workload: row.workload,
    },
  };
}
