import { type Static, Type } from 'typebox';
import { FreeFormMap, StringEnum } from '../../http/schema-types.js';
import { workloadOf } from './fingerprint.js';
import { FLAT_ALERT_SEVERITIES, type FlatAlert } from './normalize-alert.js';

const StringMap = Type.Record(Type.String(), Type.Unknown());

/** CONTRACT, Alert webhook: the flat alert. */
export const FlatAlertBody = Type.Object({
  alert_name: Type.Optional(Type.String({ minLength: 1 })),
  alert_type: Type.Optional(Type.String({ minLength: 1 })),
  severity: Type.Optional(StringEnum(FLAT_ALERT_SEVERITIES, { default: 'warning' })),
  source: Type.Optional(Type.String({ default: 'webhook' })),
  target_resource: Type.Optional(Type.String({ default: '' })),
  namespace: Type.Optional(Type.String({ minLength: 1, default: 'default' })),
  workload: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ default: '' })),
  labels: Type.Optional(FreeFormMap),
  annotations: Type.Optional(FreeFormMap),
  rule_id: Type.Optional(Type.String()),
  rule_type: Type.Optional(Type.String()),
});
export type FlatAlertBody = Static<typeof FlatAlertBody>;

/** Prometheus Alertmanager webhook, version 4; each entry of `alerts` is one alert. */
export const AlertmanagerBody = Type.Object({
  version: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  receiver: Type.Optional(Type.String()),
  groupLabels: Type.Optional(StringMap),
  commonLabels: Type.Optional(StringMap),
  commonAnnotations: Type.Optional(StringMap),
  externalURL: Type.Optional(Type.String()),
  alerts: Type.Array(
    Type.Object({
      status: Type.Optional(Type.String()),
      labels: Type.Optional(StringMap),
      annotations: Type.Optional(StringMap),
      startsAt: Type.Optional(Type.String()),
      endsAt: Type.Optional(Type.String()),
      fingerprint: Type.Optional(Type.String()),
    }),
  ),
});

const AlertResultSchema = Type.Object({
  status: Type.String({ description: 'created, converged or resolved' }),
  alert_id: Type.String(),
  fingerprint: Type.String(),
  incident_id: Type.Union([Type.String(), Type.Null()]),
  approval_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  hit_count: Type.Optional(Type.Integer()),
  analysis_scheduled: Type.Boolean(),
});

export const AlertResponse = Type.Union([
  AlertResultSchema,
  Type.Object({ status: Type.Literal('batch'), results: Type.Array(AlertResultSchema) }),
]);

export function stringMap(
  value: Record<string, unknown> | null | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value ?? {})) {
    if (item === null || item === undefined) continue;
    out[key] = typeof item === 'string' ? item : JSON.stringify(item);
  }
  return out;
}

/** A validated flat body, with the contract's defaults filled in. */
export function flatAlertFromBody(body: FlatAlertBody): FlatAlert {
  const target = body.target_resource ?? '';
  return {
    alert_name: body.alert_name ?? '',
    alert_type: body.alert_type,
    severity: body.severity ?? 'warning',
    source: body.source ?? 'webhook',
    target_resource: target,
    namespace: body.namespace ?? 'default',
    workload: body.workload || workloadOf(target),
    message: body.message ?? '',
    labels: stringMap(body.labels),
    annotations: stringMap(body.annotations),
    rule_id: body.rule_id,
    rule_type: body.rule_type,
    status: 'firing',
  };
}
