import type { FastifyBaseLogger } from 'fastify';
import type { ResilientAnalyzer } from './adapters/analyzers/resilient-analyzer.js';
import type { Config } from './config.js';
import type { Expert } from './features/analysis/analysis-types.js';
import type { ExternalEventRecords } from './features/errtracker/external-event-records.js';
import type { OperationLog } from './features/oplog/operation-log-writer.js';
import type { FollowUpWriter } from './features/outbox/follow-up-writer.js';
import type { Outbox } from './features/outbox/outbox.js';
import type { Metrics } from './observability/metrics.js';
import type { BusPort } from './ports/bus.js';
import type { ChatPort } from './ports/chat.js';
import type { Clock } from './ports/clock.js';
import type { CredentialFailures } from './ports/credential-failures.js';
import type { EventFeedPort } from './ports/event-feed.js';
import type { Executor } from './ports/executor.js';
import type { JobQueue } from './ports/jobs.js';
import type { Leases } from './ports/lease.js';
import type { OnceKeys } from './ports/once-keys.js';
import type { Store } from './ports/store.js';
import type { StreamPort } from './ports/stream.js';
import type { TrackerPort } from './ports/tracker.js';

/** A dependency the service cannot work without, and a cheap round trip to it. */
export interface DependencyCheck {
  name: 'database' | 'redis';
  ping(): Promise<void>;
}

/** Everything a feature may use, built once at start-up from the configuration. */
export interface Services {
  config: Config;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: Metrics;
  store: Store;
  stream: StreamPort;
  bus: BusPort;
  /** The service's own events for `GET /api/v1/events`, shared by every replica. */
  feed: EventFeedPort;
  once: OnceKeys;
  jobs: JobQueue;
  /** One holder per name across replicas: chat long polling runs on the holder only. */
  leases: Leases;
  /** Failed credentials per client address and credential kind, shared by every replica. */
  failures: CredentialFailures;
  /** Failed operator keys per client address over all operator ids, shared likewise. */
  operatorKeyFailures: CredentialFailures;
  /** The configured analyzer behind the spec's timeout, concurrency limit and breaker. */
  analyzer: ResilientAnalyzer;
  /**
   * The analysis experts ANALYZER chose: the rule-based ones, or model calls made under the
   * analyzer's own timeout, concurrency limit and breaker.
   */
  experts: readonly Expert[];
  tracker: TrackerPort;
  chat: ChatPort;
  /** Runs repair playbook steps: dry-run or kubectl (REPAIR_EXECUTOR). */
  executor: Executor;
  /** The audit trail's writes, batched per service (operation-log-writer.ts). */
  oplog: OperationLog;
  /** Relays committed follow-up jobs to `jobs` and records their completion (outbox.ts). */
  outbox: Outbox;
  /** How records commit the jobs they owe, chosen by the queue (follow-up-writer.ts). */
  followUps: FollowUpWriter;
  /** The error tracker's delivery stages, written in batches (external-event-records.ts). */
  trackerEvents: ExternalEventRecords;
  /** What readiness checks: the database, and Redis when REDIS_URL is set. */
  dependencies: readonly DependencyCheck[];
}
