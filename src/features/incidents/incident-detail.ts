import { Type } from 'typebox';
import { NullableString } from '../../http/schema-types.js';
import type { Db } from '../../ports/store.js';
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
    }),
  ),
});

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/**
 * An incident as `GET /incidents/{id}` and the operators' moves answer it: the read view, its
 * lifecycle (CONTRACT, Incident lifecycle) with the timeline, and its latest alerts.
 */
export async function incidentDetail(db: Db, id: string) {
  const row = await findIncident(db, id);
  if (!row) return undefined;
  const [timeline, alerts] = await Promise.all([timelineOf(db, id), recentAlertsOf(db, id, 20)]);
  return {
    ...incidentView(row),
    acknowledged_by: row.acknowledged_by,
    acknowledged_at: isoOrNull(row.acknowledged_at),
    resolved_by: row.resolved_by,
    resolved_at: isoOrNull(row.resolved_at),
    reopen_count: Number(row.reopen_count),
    timeline,
    recent_alerts: alerts.map((alert) => ({
      ...alert,
      received_at: new Date(alert.received_at).toISOString(),
    })),
  };
}
