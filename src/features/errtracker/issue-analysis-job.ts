import { ANALYZER_LIMITS } from '../../ports/analyzer.js';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { typedJob } from '../../support/typed-job.js';
import type { CardSender } from '../cards/card-types.js';
import { addFollowUpJob } from '../outbox/outbox-relay.js';
import { analyzeIssue } from './analyze-issue.js';
import {
  type AnalyzeIssueJob,
  AnalyzeIssuePayload,
  issueAnalysisJobId,
} from './issue-analysis-payload.js';

/** The services this file's functions use. */
type IssueAnalysisJobServices = Pick<
  Services,
  | 'analyzer'
  | 'chat'
  | 'clock'
  | 'config'
  | 'executor'
  | 'feed'
  | 'jobs'
  | 'leases'
  | 'log'
  | 'metrics'
  | 'oplog'
  | 'outbox'
  | 'store'
  | 'tracker'
  | 'trackerEvents'
>;

/** spec, step 7: an accepted issue's analysis runs as a durable background job. */
export const ANALYZE_ISSUE_JOB = 'errtracker.analyze';

/**
 * Commits the analysis job (the outbox) before the delivery is answered `accepted`; relay it
 * after the commit. A crash or a queue outage delays the analysis, it cannot lose it.
 */
export function addIssueAnalysis(tx: Tx, job: AnalyzeIssueJob, now: number): Promise<void> {
  return addFollowUpJob(
    tx,
    { name: ANALYZE_ISSUE_JOB, payload: job, jobId: issueAnalysisJobId(job) },
    now,
  );
}

/** Never throws: a job not relayed now is relayed by the background relay. */
export async function relayIssueAnalysis(
  services: IssueAnalysisJobServices,
  job: AnalyzeIssueJob,
): Promise<void> {
  await services.outbox.relay(issueAnalysisJobId(job));
}

/** As many analyses at once as the analyzer admits (spec, Limits: 3). */
export function registerErrtrackerWorkers(
  services: IssueAnalysisJobServices,
  cards: CardSender,
): void {
  services.jobs.process(
    ANALYZE_ISSUE_JOB,
    typedJob(ANALYZE_ISSUE_JOB, AnalyzeIssuePayload, services.log, (job) =>
      analyzeIssue(services, cards, job),
    ),
    ANALYZER_LIMITS.concurrency,
  );
}
