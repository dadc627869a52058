import crypto from 'node:crypto';
import { type Job, Queue, Worker } from 'bullmq';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import {
  type JobHandler,
  type JobOptions,
  type JobQueue,
  JobQueueClosedError,
} from '../../ports/jobs.js';
import { settledWithin, withDeadline } from '../../support/deadline.js';
import {
  asRedisFailure,
  BOUNDED_REDIS_OPTIONS,
  REDIS_WAIT_MS,
  type RedisHangWatch,
} from './redis-connections.js';

export interface BullmqJobsOptions {
  /** First retry delay; BullMQ doubles it for each further retry. */
  backoffMs?: number;
  /** How long close() waits for running handlers before dropping the connection. */
  closeTimeoutMs?: number;
  /**
   * Told the job's name each time one of this process's workers gives a job up: failed with
   * no attempts left. (A job BullMQ fails because it stalled twice, its process dying while
   * running it, is failed by a script, not a worker, and is not told.)
   */
  onGivenUp?: (jobName: string) => void;
  /** Shares hangs found on the queues' bounded connection with the app's own. */
  hangWatch?: RedisHangWatch;
  /** How long a running job's lock lasts unless renewed (JOB_LEASE_MS); default 20 s. */
  leaseMs?: number;
}

const HOUR_S = 60 * 60;
// Finished jobs are kept a while for inspection, bounded in both count and age.
const KEEP_COMPLETED = { count: 1000, age: 24 * HOUR_S };
const KEEP_FAILED = { count: 5000, age: 7 * 24 * HOUR_S };

interface Registration {
  handler: JobHandler;
  concurrency: number;
}

/**
 * Jobs on BullMQ, with one BullMQ queue per job name: a BullMQ worker takes every job of
 * its queue, so per-name handlers and concurrency need per-name queues. Keys live under
 * `${prefix}bull`. Job names must not contain ':' (BullMQ's rule for queue names).
 * Like the SQL queue, enqueueing the id of a finished job replaces it so it runs again.
 */
export function createBullmqJobs(
  redisUrl: string,
  prefix: string,
  log: FastifyBaseLogger,
  options: BullmqJobsOptions = {},
): JobQueue {
  const backoffMs = options.backoffMs ?? 1000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const lockMs = options.leaseMs ?? 20_000;
  const onGivenUp = options.onGivenUp ?? (() => undefined);
  const bullPrefix = `${prefix}bull`;
  const registrations = new Map<string, Registration>();
  const queues = new Map<string, Queue>();
  const workers: Worker[] = [];
  let connection: Redis | undefined;
  let queueConnection: Redis | undefined;
  let started = false;
  let closed: Promise<void> | undefined;
  const reconnectListeners: Array<() => void> = [];

  let serverRunId: string | undefined;

  /**
   * A connection ready again with a Redis whose `run_id` changed: the server restarted, and
   * without persistence its queued jobs are gone. A reconnect to the same server (a network
   * blip) keeps them, and is not reported.
   */
  function watchReconnects(watched: Redis): void {
    watched.on('ready', () => {
      watched
        .info('server')
        .then((info) => {
          const line = info.split('\n').find((entry) => entry.startsWith('run_id:'));
          const runId = line?.slice('run_id:'.length).trim();
          if (!runId) return;
          const restarted = serverRunId !== undefined && runId !== serverRunId;
          serverRunId = runId;
          if (restarted) for (const listener of reconnectListeners) listener();
        })
        .catch((error: unknown) =>
          log.debug({ err: error }, 'jobs: Redis run id not read after a reconnect'),
        );
    });
  }

  // Connected on first use, so building the services does not dial Redis twice at boot.
  function redis(): Redis {
    if (!connection) {
      connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
      connection.on('error', (error) => log.warn({ err: error }, 'jobs: redis connection error'));
      watchReconnects(connection);
    }
    return connection;
  }

  /**
   * Enqueueing happens on request paths (an alert that opens an incident), so queues add
   * jobs over a bounded connection of their own; only the workers' connection waits for
   * Redis forever (`maxRetriesPerRequest: null`, which BullMQ requires for blocking reads).
   */
  function boundedRedis(): Redis {
    if (!queueConnection) {
      queueConnection = new Redis(redisUrl, BOUNDED_REDIS_OPTIONS);
      queueConnection.on('error', (error) =>
        log.warn({ err: error }, 'jobs: redis queue connection error'),
      );
      options.hangWatch?.watch(queueConnection);
      watchReconnects(queueConnection);
    }
    return queueConnection;
  }

  function queueFor(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      const connection = boundedRedis();
      // BullMQ keeps a queue whose set-up failed failed for good, so none is made while
      // Redis is away, and one whose set-up fails anyway is dropped for a fresh one.
      if (connection.status !== 'ready' && connection.status !== 'connecting') {
        throw new Error(`Redis connection is ${connection.status}`);
      }
      const made = new Queue(name, { connection, prefix: bullPrefix });
      made.on('error', (error) => log.warn({ err: error, name }, 'jobs: queue error'));
      made.waitUntilReady().catch(() => {
        if (queues.get(name) === made) queues.delete(name);
        made.close().catch(() => undefined);
      });
      queues.set(name, made);
      queue = made;
    }
    return queue;
  }

  /** Drops a finished job under this id, so the id can be enqueued again. */
  async function clearFinished(queue: Queue, bullId: string): Promise<void> {
    const existing = await queue.getJob(bullId);
    if (!existing) return;
    const state = await existing.getState();
    if (state !== 'completed' && state !== 'failed') return;
    try {
      await existing.remove();
    } catch (error) {
      // Another enqueuer removed it first; adding below is idempotent either way.
      log.debug({ err: error, job: bullId }, 'jobs: finished job already removed');
    }
  }

  function startWorker(name: string, registration: Registration): Worker {
    const worker = new Worker(
      name,
      (job: Job) => registration.handler(job.data as Record<string, unknown>),
      {
        connection: redis(),
        prefix: bullPrefix,
        concurrency: Math.max(1, registration.concurrency),
        // A job of a killed replica is taken over within about 30 s instead of BullMQ's 60:
        // the lock (renewed every half of it while the job runs) and the stalled-job check.
        lockDuration: lockMs,
        stalledInterval: lockMs / 2,
      },
    );
    worker.on('error', (error) => log.warn({ err: error, name }, 'jobs: worker error'));
    worker.on('failed', (job, error) => {
      const context = { err: error, job: job?.id, name, attempt: job?.attemptsMade };
      // BullMQ sets finishedOn only when it moves the job to `failed`, not when it retries.
      if (job?.finishedOn) {
        log.error(context, 'jobs: job failed; no attempts left');
        onGivenUp(name);
      } else log.warn(context, 'jobs: job failed; will retry');
    });
    return worker;
  }

  async function shutdown(): Promise<void> {
    const closing = workers.map((w) => w.close());
    const closed = await settledWithin(closing, closeTimeoutMs);
    await Promise.allSettled([...queues.values()].map((q) => q.close()));
    if (closed) return quit();
    // Pulling the connection from under a busy worker sends BullMQ into a busy loop, so the
    // workers finish closing in the background and release the connection after that.
    log.warn('jobs: close gave up waiting for running jobs; they finish in the background');
    void Promise.allSettled(closing).then(quit);
  }

  async function quit(): Promise<void> {
    queueConnection?.disconnect();
    await connection?.quit().catch(() => connection?.disconnect());
  }

  async function add(
    queue: Queue,
    name: string,
    payload: Record<string, unknown>,
    options: {
      bullId: string;
      attempts: number;
    },
  ): Promise<void> {
    await clearFinished(queue, options.bullId);
    await queue.add(name, payload, {
      jobId: options.bullId,
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: backoffMs },
      removeOnComplete: KEEP_COMPLETED,
      removeOnFail: KEEP_FAILED,
    });
  }

  return {
    onReconnected(listener: () => void) {
      reconnectListeners.push(listener);
    },

    async enqueue(name: string, payload: Record<string, unknown>, jobOptions: JobOptions = {}) {
      if (closed) throw new JobQueueClosedError();
      const id = jobOptions.jobId ?? crypto.randomUUID();
      const options = { bullId: toBullId(id), attempts: Math.max(1, jobOptions.attempts ?? 3) };
      // A queue made while Redis is down waits for it to come back before its first command;
      // the deadline keeps that wait, too, within the request path's bound.
      try {
        const adding = add(queueFor(name), name, payload, options);
        await withDeadline(adding, REDIS_WAIT_MS, () => new Error('Redis did not answer in time'));
      } catch (error) {
        throw asRedisFailure(error);
      }
      return id;
    },

    process(name: string, handler: JobHandler, concurrency: number) {
      if (name.includes(':')) throw new Error(`jobs: job name ${name} must not contain ':'`);
      if (registrations.has(name)) throw new Error(`jobs: a handler for ${name} already exists`);
      const registration = { handler, concurrency };
      registrations.set(name, registration);
      if (started && !closed) workers.push(startWorker(name, registration));
    },

    async start() {
      if (started || closed) return;
      started = true;
      for (const [name, registration] of registrations) {
        workers.push(startWorker(name, registration));
      }
      await Promise.all(workers.map((w) => w.waitUntilReady()));
    },

    close() {
      closed ??= shutdown();
      return closed;
    },
  };
}

/**
 * BullMQ rejects custom ids that look like integers or contain ':'; escaping '%', ':' and
 * '#' and marking integer-looking ids with a leading '#' keeps every caller id usable and
 * distinct.
 */
function toBullId(id: string): string {
  const escaped = id.replace(/[%:#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${Number.parseInt(escaped, 10)}` === escaped ? `#${escaped}` : escaped;
}
