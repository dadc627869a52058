import type { Services } from '../../services.js';
import { repeatEvery } from '../../support/repeat-every.js';
import { registerAnalysisWorker } from './analysis-job.js';
import { createAnalysisRunner, INTERRUPTED, publishTaskEvent } from './run-analysis.js';
import { changeTask, expiredTaskIds, purgeFinishedBefore } from './task-records.js';

/** The services this file's functions use. */
type AnalysisWorkServices = Pick<
  Services,
  'bus' | 'clock' | 'experts' | 'feed' | 'jobs' | 'log' | 'store'
>;

const DAY_MS = 24 * 3_600_000;
/** spec, Limits: "Task result retention: 7 days" (a task is kept 7 days after it finished). */
export const RETENTION_MS = 7 * DAY_MS;
export const SWEEP_EVERY_MS = 60_000;

/**
 * Marks FAILED the running tasks whose lease ran out (their process died: docs/api.md, Analysis tasks;
 * never left running forever), and purges tasks finished more than 7 days ago with their events.
 * A task whose process is alive keeps renewing its lease, so another replica's sweep leaves
 * it alone.
 */
export async function sweepTasks(
  services: AnalysisWorkServices,
): Promise<{ interrupted: number; purged: number }> {
  const { store, clock } = services;
  const now = clock.now();
  let interrupted = 0;
  for (const id of await expiredTaskIds(store.db, now)) {
    const failed = await changeTask(
      store.db,
      id,
      { state: 'RUNNING', leaseBefore: now },
      {
        state: 'FAILED',
        current_step: 'Analysis interrupted',
        error: INTERRUPTED.lease,
        completed_at: now,
        locked_until: null,
      },
      { type: 'failed', now },
    );
    if (!failed) continue;
    interrupted += 1;
    // Streams following it on a live replica end on this event.
    await publishTaskEvent(services, failed);
  }
  const purged = await purgeFinishedBefore(store.db, now - RETENTION_MS);
  return { interrupted, purged };
}

export interface AnalysisWork {
  stop(): Promise<void>;
}

/**
 * The background side of analysis tasks: the job handler, and the sweep, run once at start
 * (what a dead process left is handled before new work) and then every minute.
 */
export function startAnalysisWork(services: AnalysisWorkServices): AnalysisWork {
  const { log, experts } = services;
  const runner = createAnalysisRunner(services, experts);
  registerAnalysisWorker(services, (taskId) => runner.run(taskId));
  const sweeping = repeatEvery(
    SWEEP_EVERY_MS,
    async () => {
      const { interrupted, purged } = await sweepTasks(services);
      if (interrupted || purged) log.info({ interrupted, purged }, 'analysis: tasks swept');
    },
    (error) => log.warn({ err: error }, 'analysis: task sweep failed'),
    // What a dead process left is handled before new work.
    { runNow: true },
  );
  return {
    async stop() {
      await sweeping.stop();
      await runner.stop();
    },
  };
}
