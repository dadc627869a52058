import type { FastifyBaseLogger } from 'fastify';
import type { ResilientAnalyzer } from './adapters/analyzers/resilient-analyzer.js';
import type { Config } from './config.js';
import type { Metrics } from './observability/metrics.js';
import type { BusPort } from './ports/bus.js';
import type { ChatPort } from './ports/chat.js';
import type { Clock } from './ports/clock.js';
import type { JobQueue } from './ports/jobs.js';
import type { OnceKeys } from './ports/once-keys.js';
import type { Store } from './ports/store.js';
import type { StreamPort } from './ports/stream.js';
import type { TrackerPort } from './ports/tracker.js';

/** Everything a feature may use, built once at start-up from the configuration. */
export interface Services {
  config: Config;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: Metrics;
  store: Store;
  stream: StreamPort;
  bus: BusPort;
  once: OnceKeys;
  jobs: JobQueue;
  /** The configured analyzer behind the spec's timeout, concurrency limit and breaker. */
  analyzer: ResilientAnalyzer;
  tracker: TrackerPort;
  chat: ChatPort;
}
