import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Metrics } from './observability/metrics.js';
import type { BusPort } from './ports/bus.js';
import type { Clock } from './ports/clock.js';
import type { JobQueue } from './ports/jobs.js';
import type { OnceKeys } from './ports/once-keys.js';
import type { Store } from './ports/store.js';
import type { StreamPort } from './ports/stream.js';

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
}
