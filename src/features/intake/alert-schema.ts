import { type Static, Type } from 'typebox';
import {
  FreeFormMap,
  IDENTIFYING,
  Identifier,
  LabelMap,
  StringEnum,
} from '../../http/schema-types.js';
import { setOwn } from '../../support/own-value.js';
import { workloadOf } from './fingerprint.js';
import { FLAT_ALERT_SEVERITIES, type FlatAlert, TARGET_LABELS } from './normalize-alert.js';

/** CONTRACT, Alert webhook: the flat alert. */
export const FlatAlertBody = Type.Object({
  alert_name: Type.Optional(Identifier({ minLength: 1 })),
  alert_type: Type.Optional(Identifier({ minLength: 1 })),
  severity: Type.Optional(StringEnum(FLAT_ALERT_SEVERITIES, { default: 'warning' })),
  source: Type.Optional(Identifier({ default: 'webhook' })),
  target_resource: Type.Optional(Identifier({ default: '' })),
  namespace: Type.Optional(Identifier({ minLength: 1, default: 'default' })),
  workload: Type.Optional(Identifier()),
  message: Type.Optional(Type.String({ default: '' })),
  labels: Type.Optional(FreeFormMap),
  annotations: Type.Optional(FreeFormMap),
  rule_id: Type.Optional(Identifier()),
  rule_type: Type.Optional(Identifier()),
  // CONTRACT, Incident lifecycle: a flat alert may say that its problem is over.
  status: Type.Optional(StringEnum(['firing', 'resolved'] as const, { default: 'firing' })),
});
export type FlatAlertBody = Static<typeof FlatAlertBody>;

/**
 * Labels whose values become the identifying fields of an Alertmanager alert (its name,
 * namespace, type, rule and target), capped like the flat alert's fields.
 */
const AlertmanagerLabels = Type.Unsafe<Record<string, unknown>>({
  ...LabelMap,
  properties: Object.fromEntries(
    ['alertname', 'namespace', 'alert_type', 'rule_id', 'rule_type', ...TARGET_LABELS].map(
      // Values are strings by protocol; others are kept (stringified) as before, uncapped.
      (name) => [
        name,
        {
          if: { type: 'string' },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a thenable
          then: { type: 'string', ...IDENTIFYING },
        },
      ],
    ),
  ),
});

/** Prometheus Alertmanager webhook, version 4; each entry of `alerts` is one alert. */
export const AlertmanagerBody = Type.Object({
  version: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  receiver: Type.Optional(Type.String()),
  groupLabels: Type.Optional(LabelMap),
  commonLabels: Type.Optional(AlertmanagerLabels),
  commonAnnotations: Type.Optional(LabelMap),
  externalURL: Type.Optional(Type.String()),
  alerts: Type.Array(
    Type.Object({
      status: Type.Optional(Type.String()),
      labels: Type.Optional(AlertmanagerLabels),
      annotations: Type.Optional(LabelMap),
      startsAt: Type.Optional(Type.String()),
      endsAt: Type.Optional(Type.String()),
      fingerprint: Type.Optional(Type.String()),
    }),
  ),
});

const AlertResultSchema = Type.Object({
  status: Type.String({ description: 'created, converged, resolved or silenced' }),
  alert_id: Type.String(),
  fingerprint: Type.String(),
  incident_id: Type.Union([Type.String(), Type.Null()]),
  approval_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  hit_count: Type.Optional(Type.Integer()),
  // CONTRACT, Silences: a muted alert names its silence and carries no analysis flag.
  silence_id: Type.Optional(Type.String()),
  analysis_scheduled: Type.Optional(Type.Boolean()),
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
    setOwn(out, key, typeof item === 'string' ? item : JSON.stringify(item));
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
    status: body.status ?? 'firing',
  };
}
