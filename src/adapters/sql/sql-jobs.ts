import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../ports/clock.js';
import type { JobHandler, JobOptions, JobQueue } from '../../ports/jobs.js';
import type { Store } from '../../ports/store.js';
import { settledWithin } from '../../support/deadline.js';
import { groupCommit } from '../../support/group-commit.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import {
  abandonInterrupted,
  claimJob,
  claimQueuedJobs,
  findDue,
  namesWithWork,
} from './sql-job-claims.js';
import { failureOutcomes, recordRunEnd } from './sql-job-failures.js';
import { holdLease, type JobLease } from './sql-job-lease.js';
import {
  COMPLETED,
  deleteFinished,
  FAILED,
  finishRun,
  INTERRUPTED_GRACE,
  insertJobs,
  type JobRow,
  type NewJob,
  newJobOf,
  type Outcome,
  QUEUED,
  RUNNING,
} from './sql-job-rows.js';

export interface SqlJobsOptions {
  /**
   * How often to look for jobs of other processes, come due or left by a dead one: 1 s on
   * SQLite, 5 s where the database wakes us (LISTEN/NOTIFY), as the poll is only a safety net.
   */
  pollMs?: number;
  /** First retry delay; each further retry doubles it, up to 15 minutes. */
  backoffMs?: number;
  /** How long a claim stays valid without renewal; renewed every third of it while running. */
  leaseMs?: number;
  /** How long close() waits for running handlers before giving up on them. */
  closeTimeoutMs?: number;
  /** Told the job's name each time a job is given up here: failed with no attempts left. */
  onGivenUp?: (jobName: string) => void;
}

const DAY = 24 * 60 * 60 * 1000;

const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** The wake-up topic of the job queue; its payload is the job's name. */
const WAKE_TOPIC = 'jobs';
/** A retry's timer fires this much after its run_after, so the claim finds it due. */
const RETRY_SLACK_MS = 5;

interface Registration {
  handler: JobHandler;
  concurrency: number;
  active: number;
}

/**
 * Durable queue in the jobs table, for SQLite and PostgreSQL alike. Claims are guarded
 * UPDATEs (see sql-job-rows.ts), so several processes may share the database. Finished
 * jobs are kept a while (completed 1 day, failed 7 days) for inspection; enqueueing the id
 * of a finished job replaces it, so an id can be run again once its last run is over.
 */
export function createSqlJobs(
  store: Store,
  clock: Clock,
  log: FastifyBaseLogger,
  options: SqlJobsOptions = {},
): JobQueue {
  const wakeups = store.wakeups;
  const pollMs = options.pollMs ?? (wakeups ? 5_000 : 1_000);
  // Renewed every third while the job runs; a dead process's job is run again 20 s later.
  const leaseMs = options.leaseMs ?? 20_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const onGivenUp = options.onGivenUp ?? (() => undefined);
  const db = store.db;
  const registrations = new Map<string, Registration>();
  const running = new Set<Promise<void>>();
  const leases = new Set<JobLease>();
  let started = false;
  let closing = false;
  let closed: Promise<void> | undefined;
  let poller: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  const retryTimers = new Set<NodeJS.Timeout>();
  let lastSweep = 0;
  const inserts = groupCommit<NewJob>(async (jobs) => {
    await insertJobs(db, jobs);
    for (const name of new Set(jobs.map((job) => job.name))) wakeups?.notify(WAKE_TOPIC, name);
  });
  // Runs that end together are recorded in one transaction: one commit for the lot.
  const finishes = groupCommit<{ id: string; until: number; outcome: Outcome }, boolean>((ended) =>
    db.transaction().execute(async (tx) => {
      const now = clock.now();
      const recorded: boolean[] = [];
      for (const run of ended)
        recorded.push(await finishRun(tx, run.id, run.until, run.outcome, now));
      return recorded;
    }),
  );
  // One claim pass at a time; a wake-up during a pass makes it go round once more. An
  // enqueue or a finished run wakes its own job name only; the poll looks at every name,
  // and is the one to find runs whose process died (only time can reveal those).
  let pass: Promise<void> | undefined;
  const wokenNames = new Set<string>();
  let pollDue = false;

  function wake(name?: string): void {
    if (!started || closing) return;
    if (name === undefined) pollDue = true;
    else wokenNames.add(name);
    pass ??= claimPasses().finally(() => {
      pass = undefined;
    });
  }

  async function claimPasses(): Promise<void> {
    while ((pollDue || wokenNames.size > 0) && !closing) {
      const poll = pollDue;
      const woken = [...wokenNames];
      pollDue = false;
      wokenNames.clear();
      try {
        const names = poll
          ? [
              ...new Set([
                ...woken,
                ...(await namesWithWork(db, [...registrations.keys()], clock.now())),
              ]),
            ]
          : woken;
        await sweepIfDue();
        for (const name of names) {
          const registration = registrations.get(name);
          if (registration) await claimFor(name, registration, poll);
        }
      } catch (error) {
        log.error({ err: error }, 'jobs: claiming failed; retrying on the next poll');
      }
    }
  }

  async function claimFor(
    name: string,
    registration: Registration,
    withAbandoned: boolean,
  ): Promise<void> {
    const free = registration.concurrency - registration.active;
    if (free <= 0 || closing) return;
    const now = clock.now();
    const found = await findDue(db, name, now, free, withAbandoned);
    // Queued jobs are taken together, in one statement; a backlog costs a claim per batch.
    const queued = found.filter((seen) => seen.status === QUEUED).map((seen) => seen.id);
    // Claimed even if closing began meanwhile: close() waits for this pass, then for them.
    for (const job of await claimQueuedJobs(db, name, queued, now, now + leaseMs))
      launch(registration, job);
    for (const seen of found.filter((candidate) => candidate.status === RUNNING)) {
      if (closing || registration.active >= registration.concurrency) return;
      if (seen.attempts_made >= seen.max_attempts + INTERRUPTED_GRACE) {
        if (await abandonInterrupted(db, seen, now)) {
          log.error({ job: seen.id, name }, 'jobs: interrupted too often; marked failed');
          onGivenUp(name);
        }
        continue;
      }
      const job = await claimJob(db, seen, now, now + leaseMs);
      if (job) launch(registration, job);
    }
  }

  function launch(registration: Registration, job: JobRow): void {
    registration.active += 1;
    const run = execute(registration.handler, job).finally(() => {
      registration.active -= 1;
      running.delete(run);
      // Claim again once a quarter of the slots are free (or all are): one claim statement
      // for several jobs, rather than a claim after every job. The poller covers the rest.
      const free = registration.concurrency - registration.active;
      if (registration.active === 0 || free >= Math.ceil(registration.concurrency / 4)) {
        wake(job.name);
      }
    });
    running.add(run);
  }

  async function execute(handler: JobHandler, job: JobRow): Promise<void> {
    const lease = holdLease(db, clock, log, leaseMs, job);
    leases.add(lease);
    let outcome: Outcome;
    try {
      await handler(JSON.parse(job.payload) as Record<string, unknown>);
      outcome = { status: COMPLETED };
    } catch (error) {
      outcome = failureOutcome(job, error);
    }
    try {
      const until = await lease.release();
      leases.delete(lease);
      if (until === undefined) return;
      const record = () => finishes.add({ id: job.id, until, outcome });
      const recorded = await recordRunEnd(store, until - clock.now(), record);
      if (!recorded) log.warn({ job: job.id }, 'jobs: lease lost before the run ended');
      // Counted once the failure is recorded: a run whose lease was lost is run again.
      else if (outcome.status === FAILED) onGivenUp(job.name);
    } catch (error) {
      log.error({ err: error, job: job.id }, 'jobs: could not record the end of a run');
    }
  }

  const failureOutcome = failureOutcomes({
    store,
    clock,
    log,
    backoffMs: options.backoffMs ?? 1000,
    wakeAfter,
  });

  /** A retry this process scheduled is claimed when due, not at the next poll. */
  function wakeAfter(name: string, delayMs: number): void {
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      wake(name);
    }, delayMs + RETRY_SLACK_MS);
    timer.unref();
    retryTimers.add(timer);
  }

  async function sweepIfDue(): Promise<void> {
    if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = Date.now();
    const now = clock.now();
    await deleteFinished(db, now - DAY, now - 7 * DAY);
  }

  async function shutdown(): Promise<void> {
    closing = true;
    if (poller) clearInterval(poller);
    stopListening?.();
    for (const timer of retryTimers) clearTimeout(timer);
    retryTimers.clear();
    await pass;
    if (running.size === 0) return;
    if (!(await settledWithin([...running], closeTimeoutMs))) {
      // Stop renewing so the leases run out and another process can resume these jobs.
      for (const lease of leases) lease.stop();
      log.warn({ running: running.size }, 'jobs: close gave up waiting for running jobs');
    }
  }

  return {
    async enqueue(name: string, payload: Record<string, unknown>, jobOptions: JobOptions = {}) {
      const jobId = jobOptions.jobId ?? timeOrderedId();
      const attempts = jobOptions.attempts ?? 3;
      await inserts.add(newJobOf({ name, payload, jobId, attempts }, clock.now()));
      wake(name);
      return jobId;
    },

    enqueueInTransaction: (tx, jobs) =>
      insertJobs(
        tx,
        jobs.map((one) => newJobOf(one, clock.now())),
      ),

    wake(names: readonly string[]) {
      for (const name of new Set(names)) {
        wake(name);
        wakeups?.notify(WAKE_TOPIC, name);
      }
    },

    process(name: string, handler: JobHandler, concurrency: number) {
      if (registrations.has(name)) throw new Error(`jobs: a handler for ${name} already exists`);
      registrations.set(name, { handler, concurrency: Math.max(1, concurrency), active: 0 });
      wake(name);
    },

    async start() {
      if (started || closing) return;
      started = true;
      // Not unref'd: like BullMQ's workers, the poller keeps a worker-only process alive.
      poller = setInterval(() => wake(), pollMs);
      // Another process enqueued a job of this name; undefined: reconnected, look at all.
      stopListening = await wakeups?.listen(WAKE_TOPIC, (name) => wake(name));
      wake();
    },

    close() {
      closed ??= shutdown();
      return closed;
    },
  };
}
