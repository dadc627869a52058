import { ANALYZER_LIMITS } from '../../ports/analyzer.js';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import type { CardSender } from '../cards/card-types.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import { type AnalyzeIssueServices, analyzeIssue } from './analyze-issue.js';
import {
  type AnalyzeIssueJob,
  AnalyzeIssuePayload,
  issueAnalysisJobId,
} from './issue-analysis-payload.js';

/** The services this file's functions use: its worker runs analyzeIssue. */
type IssueAnalysisJobServices = AnalyzeIssueServices;

/** spec, step 7: an accepted issue's analysis runs as a durable background job. */
export const ANALYZE_ISSUE_JOB = jobKind(
  'errtracker.analyze',
  AnalyzeIssuePayload,
  issueAnalysisJobId,
);

/**
 * Commits the analysis job (the outbox) before the delivery is answered `accepted`; relay it
 * after the commit. A crash or a queue outage delays the analysis, it cannot lose it.
 */
export function addIssueAnalysis(
  services: Pick<Services, 'followUps'>,
  tx: Tx,
  job: AnalyzeIssueJob,
  now: number,
): Promise<void> {
  return services.followUps.add(tx, [jobOf(ANALYZE_ISSUE_JOB, job)], now);
}

/** Never throws: a job not relayed now is relayed by the background relay. */
export async function relayIssueAnalysis(
  services: IssueAnalysisJobServices,
  job: AnalyzeIssueJob,
): Promise<void> {
  await services.followUps.relay([jobOf(ANALYZE_ISSUE_JOB, job)]);
}

/** As many analyses at once as the analyzer admits (spec, Limits: 3). */
export function registerErrtrackerWorkers(
  services: IssueAnalysisJobServices,
  cards: CardSender,
): void {
  processJobs(
    services,
    ANALYZE_ISSUE_JOB,
    (job) => analyzeIssue(services, cards, job),
    ANALYZER_LIMITS.concurrency,
  );
}
