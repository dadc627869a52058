import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Expert } from '../features/analysis/analysis-types.js';
import { RULE_EXPERTS } from '../features/analysis/experts.js';
import { createExternalEventRecords } from '../features/errtracker/external-event-records.js';
import { createOperationLog } from '../features/oplog/operation-log-writer.js';
import { createFollowUpWriter, FOLLOW_UPS_SKIPPED } from '../features/outbox/follow-up-writer.js';
import { createOutbox } from '../features/outbox/outbox.js';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import type { Analyzer } from '../ports/analyzer.js';
import { type Clock, systemClock } from '../ports/clock.js';
import { OPERATOR_KEYS_PER_ADDRESS } from '../ports/credential-failures.js';
import type { JobQueue } from '../ports/jobs.js';
import type { Services } from '../services.js';
import { createAnalyzer } from './analyzers/create-analyzer.js';
import { createModelExperts } from './analyzers/model-experts.js';
import {
  type ResilienceOptions,
  type ResilientAnalyzer,
  withResilience,
} from './analyzers/resilient-analyzer.js';
import { createStore } from './create-store.js';
import { createExecutor } from './executors/create-executor.js';
import { createHttpTracker } from './http/http-tracker.js';
import { createMemoryBus } from './memory/memory-bus.js';
import { createMemoryEventFeed } from './memory/memory-event-feed.js';
import { createMemoryLeases } from './memory/memory-leases.js';
import { rememberingOnceKeys } from './memory/remembered-once-keys.js';
import { noopChat } from './noop/noop-chat.js';
import {
  createMemoryCredentialFailures,
  createRedisCredentialFailures,
} from './rate-limiter/credential-failures.js';
import { sharedBlockReads } from './rate-limiter/shared-block-reads.js';
import { createBullmqJobs } from './redis/bullmq-jobs.js';
import { createRedisBus } from './redis/redis-bus.js';
import { BOUNDED_REDIS_OPTIONS, createRedisHangWatch } from './redis/redis-connections.js';
import { createRedisEventFeed } from './redis/redis-event-feed.js';
import { createRedisLeases } from './redis/redis-leases.js';
import { createRedisOnceKeys } from './redis/redis-once-keys.js';
import { createRedisStream } from './redis/redis-stream.js';
import { createSqlJobs } from './sql/sql-jobs.js';
import { createSqlOnceKeys } from './sql/sql-once-keys.js';
import { createSqlStream } from './sql/sql-stream.js';
import { createTelegramChat } from './telegram/telegram-chat.js';

export interface ServiceOverrides {
  clock?: Clock;
  /** Replaces the analyzer chosen by ANALYZER (tests use slow or failing ones). */
  analyzer?: Analyzer;
  resilience?: ResilienceOptions;
  /** Shortens the leases' life (tests see a chat polling takeover in seconds). */
  leaseTtlMs?: number;
}

export interface Runtime {
  services: Services;
  /** Closes in dependency order: workers first, then transports, then the database. */
  close(): Promise<void>;
}

/**
 * The one place that picks adapters: SQLite or PostgreSQL from DATABASE_URL; embedded
 * stream, bus, single-use keys and jobs, or their Redis versions from REDIS_URL; the error
 * analyzer and the analysis experts from ANALYZER.
 */
/**
 * `jobs_given_up_total` starts at 0 for each job this process runs, by the queue and by the
 * outbox: a counter with no series until its first increment hides that first give-up from
 * `increase()`, the very one an alert rule wants to see.
 */
function withGivenUpSeries(jobs: JobQueue, metrics: Metrics): JobQueue {
  const process = jobs.process.bind(jobs);
  jobs.process = (name, handler, concurrency) => {
    for (const by of ['queue', 'outbox']) metrics.jobsGivenUp.inc({ job: name, by }, 0);
    process(name, handler, concurrency);
  };
  return jobs;
}

export async function createServices(
  config: Config,
  log: FastifyBaseLogger,
  overrides: ServiceOverrides = {},
): Promise<Runtime> {
  const clock = overrides.clock ?? systemClock;
  const store = await createStore(config.database, log);
  const database = { name: 'database' as const, ping: () => store.ping() };
  const analyzer = withResilience(
    overrides.analyzer ?? createAnalyzer(config),
    overrides.resilience,
  );
  const metrics = createMetrics();
  // CONTRACT, Operator console: `jobs_given_up_total`, by the queue that ran out of attempts.
  const onGivenUp = (job: string) => metrics.jobsGivenUp.inc({ job, by: 'queue' });
  const base = {
    config,
    clock,
    log,
    metrics,
    store,
    analyzer,
    experts: chooseExperts(config, analyzer),
    tracker: createHttpTracker(
      { apiBase: config.errtrackerApiBase, token: config.errtrackerApiToken },
      log,
    ),
    chat: config.chatBotToken
      ? createTelegramChat({
          token: config.chatBotToken,
          chatId: config.chatChatId ?? '',
          apiBase: config.chatApiBase,
        })
      : noopChat,
    executor: createExecutor(config),
    oplog: createOperationLog({ store }),
    trackerEvents: createExternalEventRecords(
      { db: store.db },
      { skipRows: config.benchBound === 'tracker-stages' },
    ),
  };
  if (!config.redisUrl) {
    const jobs = withGivenUpSeries(
      createSqlJobs(store, clock, log, { onGivenUp, leaseMs: config.jobLeaseMs }),
      metrics,
    );
    const services: Services = {
      ...base,
      ...followUpsOf(base, jobs),
      stream: createSqlStream(store, clock),
      bus: createMemoryBus(),
      feed: createMemoryEventFeed(),
      once: rememberingOnceKeys(createSqlOnceKeys(store, clock), clock),
      jobs,
      leases: createMemoryLeases({ ttlMs: overrides.leaseTtlMs }),
      failures: createMemoryCredentialFailures(),
      operatorKeyFailures: createMemoryCredentialFailures(OPERATOR_KEYS_PER_ADDRESS),
      dependencies: [database],
    };
    return { services, close: () => closeAll(services) };
  }
  // Requests wait on this connection, so its waits are bounded (redis-connections.ts).
  const redis = new Redis(config.redisUrl, {
    ...BOUNDED_REDIS_OPTIONS,
    enableAutoPipelining: true,
    lazyConnect: true,
  });
  redis.on('error', (error) => log.warn({ err: error }, 'redis: connection error'));
  const hangWatch = createRedisHangWatch();
  hangWatch.watch(redis);
  try {
    await redis.connect();
  } catch (error) {
    await store.close();
    throw new Error(`REDIS_URL: cannot connect (${(error as Error).message})`);
  }
  const prefix = config.redisKeyPrefix;
  const bus = createRedisBus(redis, prefix);
  const jobs = withGivenUpSeries(
    createBullmqJobs(config.redisUrl, prefix, log, {
      onGivenUp,
      hangWatch,
      leaseMs: config.jobLeaseMs,
    }),
    metrics,
  );
  const services: Services = {
    ...base,
    ...followUpsOf(base, jobs),
    stream: createRedisStream(redis, prefix),
    bus,
    feed: createRedisEventFeed(redis, bus, prefix),
    once: rememberingOnceKeys(createRedisOnceKeys(redis, prefix), clock),
    jobs,
    leases: createRedisLeases(redis, prefix, { ttlMs: overrides.leaseTtlMs }),
    failures: sharedBlockReads(createRedisCredentialFailures(redis, prefix)),
    operatorKeyFailures: sharedBlockReads(
      createRedisCredentialFailures(redis, prefix, OPERATOR_KEYS_PER_ADDRESS),
    ),
    dependencies: [
      database,
      {
        name: 'redis',
        ping: async () => {
          await redis.ping();
        },
      },
    ],
  };
  return {
    services,
    async close() {
      await closeAll(services);
      redis.disconnect();
    },
  };
}

/**
 * The outbox in front of `jobs`, and the follow-up writer that suits that queue, or none
 * under BENCH_BOUND=follow-up (bench/README.md, Upper bounds).
 */
function followUpsOf(
  base: Pick<Services, 'config' | 'store' | 'log' | 'metrics'>,
  jobs: JobQueue,
): Pick<Services, 'outbox' | 'followUps'> {
  const { config, store, log, metrics } = base;
  const outbox = createOutbox({ store, jobs, log, metrics });
  const followUps =
    config.benchBound === 'follow-up' ? FOLLOW_UPS_SKIPPED : createFollowUpWriter({ jobs, outbox });
  return { outbox, followUps };
}

/**
 * With ANALYZER=openai each analysis expert is one model call, under the error-tracker
 * analyzer's own timeout, concurrency limit and breaker (docs/api.md, Analysis tasks: under the
 * same timeout, concurrency limit and breaker); otherwise the rule-based experts.
 */
function chooseExperts(config: Config, analyzer: ResilientAnalyzer): readonly Expert[] {
  if (config.analyzer !== 'openai' || !config.llmBaseUrl) return RULE_EXPERTS;
  return createModelExperts({
    baseUrl: config.llmBaseUrl,
    apiKey: config.llmApiKey,
    model: config.llmModel,
    run: analyzer.run,
  });
}

async function closeAll(services: Services): Promise<void> {
  await services.jobs.close();
  // After the workers, whose last steps may still append; before the database they write to.
  await services.oplog.close();
  await services.outbox.close();
  await services.trackerEvents.close();
  await services.bus.close();
  await services.stream.close();
  await services.store.close();
}
