import crypto from 'node:crypto';
import type { ErrorAnalysis } from '../../ports/analyzer.js';
import type { Services } from '../../services.js';
import { insertApproval } from '../approvals/approval-records.js';
import type { CardSender } from '../cards/card-types.js';
import { pushCardOnce } from '../escalation/card-once.js';
import { publishEvent } from '../events/feed-events.js';
import {
  addRepairEvaluation,
  type RepairJobsServices,
  relayRepairEvaluation,
} from '../repair/repair-jobs.js';
import {
  type AnomalyFrequency,
  anomalyFrequency,
  countsFromOccurrences,
  FREQUENCY_WINDOWS_MS,
  trackerAnomalyKey,
} from './anomaly-frequency.js';
import { anomalyOccurrencesAfter, recordAnomalyOccurrence } from './anomaly-records.js';
import { approvalRequestFromIssue, tempApprovalId } from './approval-from-issue.js';
import { externalEventFields } from './canary.js';
import { type AnalyzeIssueJob, issueAnalysisJobId } from './issue-analysis-payload.js';
import { trackerComment } from './tracker-comment.js';
import { postTrackerCommentOnce } from './tracker-comment-once.js';

/** The services this file's functions use: the repair evaluation's, and the tracker's. */
export type AnalyzeIssueServices = RepairJobsServices &
  Pick<Services, 'analyzer' | 'tracker' | 'trackerEvents'>;

/**
 * spec, Background analysis order: record anomaly frequency; call the analyzer; create the
 * approval; record `approval_linked`; push the approval card; comment on the tracker issue
 * when analysis succeeded. Later steps run even when an earlier optional one failed.
 */
export async function analyzeIssue(
  services: AnalyzeIssueServices,
  cards: CardSender,
  job: AnalyzeIssueJob,
): Promise<void> {
  const { store, clock, log, metrics, analyzer, config } = services;
  const { context } = job;
  const now = clock.now();
  let chainFailed = false;

  const frequency = await recordAnomaly(services, trackerAnomalyKey(context), now);
  const level = frequency.escalation_level ?? 'none';
  metrics.anomalies.labels(level).inc();
  metrics.anomalyFrequency24h.labels(level).observe(frequency.count_24h);

  let analysis: ErrorAnalysis | null = null;
  try {
    analysis = await analyzer.analyze(context);
    if (!analysis) log.warn({ issue: context.issue_id }, 'analyzer circuit open: analysis skipped');
  } catch (error) {
    chainFailed = true;
    log.error({ err: error, issue: context.issue_id }, 'analysis failed');
  }

  const request = approvalRequestFromIssue(context, analysis, frequency);
  let approvalId: string;
  try {
    // The approval and its evaluation commit together: no approval is left unevaluated.
    approvalId = await store.db.transaction().execute(async (tx) => {
      const id = await insertApproval(
        tx,
        {
          id: approvalIdOf(job),
          incidentId: null,
          riskLevel: request.risk_level,
          action: request.action,
          description: request.description,
          requestedBy: request.requested_by,
          metadata: { ...request.metadata },
          blastRadius: { ...request.blast_radius },
          dryRunChecks: request.dry_run_checks,
        },
        now,
      );
      await addRepairEvaluation(services, tx, id, now);
      return id;
    });
    metrics.alertsProcessed.labels('incident_created', 'errtracker').inc();
    publishEvent(services, 'approval.created', {
      approval_id: approvalId,
      incident_id: null,
      issue_id: context.issue_id,
      action: request.action,
      risk_level: request.risk_level,
    });
    await relayRepairEvaluation(services, approvalId);
  } catch (error) {
    chainFailed = true;
    approvalId = tempApprovalId();
    log.error({ err: error, approvalId }, 'approval not created; using a temporary id');
  }

  await services.trackerEvents.record(
    externalEventFields(context, 'approval_linked', job.context, {
      labels: { approval_id: approvalId },
    }),
    now,
    { approvalId },
  );

  try {
    await pushCardOnce(services, cards, {
      approval_id: approvalId,
      risk_level: request.risk_level,
      resource_name: context.culprit || context.project,
      root_cause: analysis?.root_cause ?? context.title,
      suggested_action: analysis?.fix_suggestion ?? 'Review the error',
      estimated_downtime: request.blast_radius.estimated_downtime,
      confidence: analysis?.confidence ?? 0,
      namespace: 'errtracker',
      ai_provider: analysis?.analyzed_by ?? 'pending',
      anomaly_frequency: frequency.count_24h > 1 ? { ...frequency } : null,
    });
  } catch (error) {
    chainFailed = true;
    log.error({ err: error, approvalId }, 'approval card not pushed');
  }

  if (analysis) {
    try {
      await postTrackerCommentOnce(services, {
        jobId: issueAnalysisJobId(job),
        issueId: context.issue_id,
        text: trackerComment(analysis, frequency, now, config.displayTz),
      });
    } catch (error) {
      chainFailed = true;
      log.error({ err: error, issue: context.issue_id }, 'tracker comment not posted');
    }
  }

  (chainFailed ? metrics.alertChainFailure : metrics.alertChainSuccess).labels('errtracker').inc();
  await services.outbox.complete(issueAnalysisJobId(job));
}

/**
 * The approval of one accepted delivery, named after its job (a UUID in form, so callbacks
 * stay within the chat API's 64 bytes): a retried job finds the approval its first run made.
 */
function approvalIdOf(job: AnalyzeIssueJob): string {
  const hex = crypto.createHash('sha256').update(issueAnalysisJobId(job)).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function recordAnomaly(
  services: AnalyzeIssueServices,
  key: string,
  now: number,
): Promise<AnomalyFrequency> {
  const { store } = services;
  await recordAnomalyOccurrence(store.db, key, now);
  const occurrences = await anomalyOccurrencesAfter(
    store.db,
    key,
    now - FREQUENCY_WINDOWS_MS.count_30d,
  );
  // Auto-repair runs are counted once the operation log records them (the repair issue).
  const counts = countsFromOccurrences(occurrences, now, 0);
  return anomalyFrequency(key, counts);
}
