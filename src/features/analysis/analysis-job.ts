import { Type } from 'typebox';
import type { Services } from '../../services.js';
import { typedJob } from '../../support/typed-job.js';

/** The services this file's functions use. */
type AnalysisJobServices = Pick<Services, 'jobs' | 'log'>;

/** The job that runs one analysis task (jobs port: no ':' in the name). */
export const ANALYSIS_JOB = 'analysis.run';
/** Analyses run at once per process; their model calls share the analyzer's own limit anyway. */
const ANALYSIS_CONCURRENCY = 4;

const AnalysisPayload = Type.Object({ task_id: Type.String({ minLength: 1 }) });

/** Queues a task's run; the task's id is the job's, so a repeat is a no-op while it is queued. */
export async function enqueueAnalysis(
  services: AnalysisJobServices,
  taskId: string,
): Promise<void> {
  await services.jobs.enqueue(ANALYSIS_JOB, { task_id: taskId }, { jobId: taskId });
}

/** Runs each queued task through `run` (run-analysis.ts's runner). */
export function registerAnalysisWorker(
  services: AnalysisJobServices,
  run: (taskId: string) => Promise<void>,
): void {
  services.jobs.process(
    ANALYSIS_JOB,
    typedJob(ANALYSIS_JOB, AnalysisPayload, services.log, (payload) => run(payload.task_id)),
    ANALYSIS_CONCURRENCY,
  );
}
