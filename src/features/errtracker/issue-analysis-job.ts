import { ANALYZER_LIMITS } from '../../adapters/analyzers/resilient-analyzer.js';
import type { Services } from '../../services.js';
import type { CardSender } from '../chat/card-types.js';
import { type AnalyzeIssueJob, analyzeIssue } from './analyze-issue.js';

/** spec, step 7: an accepted issue's analysis runs as a durable background job. */
export const ANALYZE_ISSUE_JOB = 'errtracker.analyze';

export async function enqueueIssueAnalysis(services: Services, job: AnalyzeIssueJob) {
  await services.jobs.enqueue(ANALYZE_ISSUE_JOB, job, {
    jobId: `errtracker-${job.context.issue_id}-${job.received_at}`,
  });
}

/** As many analyses at once as the analyzer admits (spec, Limits: 3). */
export function registerErrtrackerWorkers(services: Services, cards: CardSender): void {
  services.jobs.process(
    ANALYZE_ISSUE_JOB,
    (payload) => analyzeIssue(services, cards, payload as AnalyzeIssueJob),
    ANALYZER_LIMITS.concurrency,
  );
}
