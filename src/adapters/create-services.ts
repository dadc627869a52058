import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { createMetrics } from '../observability/metrics.js';
import type { Analyzer } from '../ports/analyzer.js';
import { type Clock, systemClock } from '../ports/clock.js';
import type { Services } from '../services.js';
import { createAnalyzer } from './analyzers/create-analyzer.js';
import { type ResilienceOptions, withResilience } from './analyzers/resilient-analyzer.js';
import { createStore } from './create-store.js';
import { createHttpTracker } from './http/http-tracker.js';
import { createMemoryBus } from './memory/memory-bus.js';
import { noopChat } from './noop/noop-chat.js';
import { createBullmqJobs } from './redis/bullmq-jobs.js';
import { createRedisBus } from './redis/redis-bus.js';
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
}

export interface Runtime {
  services: Services;
  /** Closes in dependency order: workers first, then transports, then the database. */
  close(): Promise<void>;
}

/**
 * The one place that picks adapters: SQLite or PostgreSQL from DATABASE_URL; embedded
 * stream, bus, single-use keys and jobs, or their Redis versions from REDIS_URL.
 */
export async function createServices(
  config: Config,
  log: FastifyBaseLogger,
  overrides: ServiceOverrides = {},
): Promise<Runtime> {
  const clock = overrides.clock ?? systemClock;
  const store = await createStore(config.database);
  const base = {
    config,
    clock,
    log,
    metrics: createMetrics(),
    store,
    analyzer: withResilience(overrides.analyzer ?? createAnalyzer(config), overrides.resilience),
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
  };
  if (!config.redisUrl) {
    const services: Services = {
      ...base,
      stream: createSqlStream(store, clock),
      bus: createMemoryBus(),
      once: createSqlOnceKeys(store, clock),
      jobs: createSqlJobs(store, clock, log),
    };
    return { services, close: () => closeAll(services) };
  }
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, lazyConnect: true });
  try {
    await redis.connect();
  } catch (error) {
    await store.close();
    throw new Error(`REDIS_URL: cannot connect (${(error as Error).message})`);
  }
  const prefix = config.redisKeyPrefix;
  const services: Services = {
    ...base,
    stream: createRedisStream(redis, prefix),
    bus: createRedisBus(redis, prefix),
    once: createRedisOnceKeys(redis, prefix),
    jobs: createBullmqJobs(config.redisUrl, prefix, log),
  };
  return {
    services,
    async close() {
      await closeAll(services);
      redis.disconnect();
    },
  };
}

async function closeAll(services: Services): Promise<void> {
  await services.jobs.close();
  await services.bus.close();
  await services.stream.close();
  await services.store.close();
}
