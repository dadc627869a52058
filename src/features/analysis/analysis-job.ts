import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';

/** The services this file's functions use. */
type AnalysisJobServices = Pick<Services, 'jobs' | 'log'>;

/** The job that runs one analysis task; the task's id is the job's. */
export const ANALYSIS_JOB = jobKind(
  'analysis.run',
  Type.Object({ task_id: Type.String({ minLength: 1 }) }),
  (payload) => payload.task_id,
);
/** Analyses run at once per process; their model calls share the analyzer's own limit anyway. */
const ANALYSIS_CONCURRENCY = 4;

/**
 * Queues a task's run; a repeat is a no-op while it is queued. Enqueued after the task's
 * admission rather than committed with it: a task the queue refuses is failed at once
 * (analysis-routes.ts), so the client hears of it instead of waiting on a relay.
 */
export async function enqueueAnalysis(
  services: AnalysisJobServices,
  taskId: string,
): Promise<void> {
  const { name, payload, jobId } = jobOf(ANALYSIS_JOB, { task_id: taskId });
  await services.jobs.enqueue(name, payload, { jobId });
}

/** Runs each queued task through `run` (run-analysis.ts's runner). */
export function registerAnalysisWorker(
  services: AnalysisJobServices,
  run: (taskId: string) => Promise<void>,
): void {
  processJobs(services, ANALYSIS_JOB, (payload) => run(payload.task_id), ANALYSIS_CONCURRENCY);
}
