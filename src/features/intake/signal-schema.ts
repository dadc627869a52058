import { type Static, Type } from 'typebox';
import { FreeFormMap, Identifier, StringEnum } from '../../http/schema-types.js';

export const SIGNALS_STREAM = 'platform:signals';
/** spec, Limits: "Signal stream length: about 10000 entries" */
export const SIGNALS_STREAM_MAX_LENGTH = 10_000;

/** spec, Signal (body of `POST /webhooks/signals`) */
export const SignalBody = Type.Object({
  source: Identifier({ minLength: 1, description: 'metrics, dashboard or cluster-event source' }),
  alert_name: Identifier({ minLength: 1 }),
  severity: Type.Optional(StringEnum(['info', 'warning', 'critical'], { default: 'warning' })),
  namespace: Type.Optional(Identifier({ minLength: 1, default: 'default' })),
  target: Identifier({ minLength: 1, description: 'affected workload, node or service name' }),
  message: Type.Optional(Type.String({ default: '' })),
  labels: Type.Optional(FreeFormMap),
  annotations: Type.Optional(FreeFormMap),
});
export type SignalBody = Static<typeof SignalBody>;

export const SignalResponse = Type.Object({
  success: Type.Boolean(),
  message_id: Type.Union([Type.String(), Type.Null()]),
  stream: Type.String(),
});

/** Layout of one stream entry: flat string fields, maps as JSON text. */
export function signalToStreamFields(signal: SignalBody, receivedAt: Date): Record<string, string> {
  return {
    source: signal.source,
    alert_name: signal.alert_name,
    severity: signal.severity ?? 'warning',
    namespace: signal.namespace ?? 'default',
    target: signal.target,
    message: signal.message ?? '',
    labels: JSON.stringify(signal.labels ?? {}),
    annotations: JSON.stringify(signal.annotations ?? {}),
    received_at: receivedAt.toISOString(),
  };
}

export interface StoredSignal {
  source: string;
  alert_name: string;
  severity: string;
  namespace: string;
  target: string;
  message: string;
  labels: Record<string, unknown>;
  annotations: Record<string, unknown>;
  received_at: string;
}

function parseMap(text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? '{}') as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function signalFromStreamFields(fields: Record<string, string>): StoredSignal {
  return {
    source: fields.source ?? '',
    alert_name: fields.alert_name ?? '',
    severity: fields.severity ?? 'warning',
    namespace: fields.namespace ?? 'default',
    target: fields.target ?? '',
    message: fields.message ?? '',
    labels: parseMap(fields.labels),
    annotations: parseMap(fields.annotations),
    received_at: fields.received_at ?? '',
  };
}
