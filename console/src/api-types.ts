/**
 * The console's names for what the service answers. The shapes are generated from the service's
 * OpenAPI document (api-types.generated.ts), the feed's events from their declaration on the
 * service; only the events of a task's stream, which no schema declares, are written out here.
 */
import type {
  ApprovalDetail,
  ApprovalPage,
  ExternalEventPage,
  FeedEvent,
  HeartbeatPage,
  IncidentDetail,
  IncidentPage,
  OperationLogPage,
  ReadbackCatalog,
  SignalPage,
  SilenceList,
  TaskStatus,
} from './api-types.generated.js';

export type {
  AnalysisAccepted,
  ApprovalDetail,
  ApprovalPage,
  ChainVerdict,
  DecisionAnswer,
  ExternalEventDetail,
  ExternalEventPage,
  FeedEvent,
  HeartbeatPage,
  IncidentDetail,
  IncidentMoveAnswer,
  IncidentPage,
  OperationLogPage,
  PackageInventory,
  ReadbackCatalog,
  SignalPage,
  SilenceCreated,
  SilenceList,
  TaskResult,
} from './api-types.generated.js';

import type { ErrorBody } from './api-types.generated.js';

/** The stable code of an error answer: what the console decides by, never its detail. */
export type ErrorCode = ErrorBody['code'];

/** An incident as listed; the detail (`GET /incidents/{id}`) has these fields and more. */
export type Incident = IncidentPage['items'][number];

/** An approval as listed: with its signers, without its card and decisions. */
export type ApprovalSummary = ApprovalPage['items'][number];

/** The feed shows approvals as listed and, after an update, as read alone. */
export type FeedApproval = ApprovalSummary | ApprovalDetail;

export type OperationEntry = OperationLogPage['items'][number];
export type ExternalEvent = ExternalEventPage['items'][number];
export type Signal = SignalPage['items'][number];
export type CatalogRow = ReadbackCatalog['items'][number];
export type TimelineEntry = IncidentDetail['timeline'][number];
/** A silence as Alertmanager's API v2 shows it, with what it muted. */
export type Silence = SilenceList[number];
export type SilenceMatcher = Silence['matchers'][number];
export type Heartbeat = HeartbeatPage['items'][number];

/**
 * An event of a task's stream (`GET /agents/stream/{task_id}`): the first is the task's status,
 * the ones after it add their `type` and, when an expert finished, its name as `agent`, but
 * carry neither the start and end times nor an `error` unless the task failed.
 */
export type TaskEvent = Omit<TaskStatus, 'started_at' | 'completed_at' | 'error'> & {
  type?: string;
  agent?: string;
  error?: string | null;
};

/** An event of the service's own feed (`GET /events`, CONTRACT, Operator console), by its `type`. */
export type FeedEventOf<T extends FeedEvent['type']> = Extract<FeedEvent, { type: T }>;
