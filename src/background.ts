import { ANALYZER_LIMITS } from './adapters/analyzers/resilient-analyzer.js';
import { startAnalysisWork } from './features/analysis/analysis-work.js';
import { EXECUTE_APPROVAL_JOB } from './features/approvals/approval-moves.js';
import { followNewIncident } from './features/approvals/incident-followup.js';
import type { CallbackDeps } from './features/chat/callback-handler.js';
import type { CardSender } from './features/chat/card-types.js';
import { type LongPolling, startLongPolling } from './features/chat/long-polling.js';
import { analyzeIssue } from './features/errtracker/analyze-issue.js';
import { ANALYZE_ISSUE_JOB, type AnalyzeIssueJob } from './features/errtracker/tracker-webhook.js';
import { type AlertIntake, ANALYZE_INCIDENT_JOB } from './features/intake/alert-intake.js';
import { startSignalConsumer } from './features/intake/signal-consumer.js';
import { executeApprovedPlaybook, type RepairDeps } from './features/repair/auto-repair.js';
import { enqueueRepairEvaluation, registerRepairJobs } from './features/repair/repair-jobs.js';
import type { Services } from './services.js';

export interface BackgroundParts {
  services: Services;
  intake: AlertIntake;
  cards: CardSender;
  callbacks: CallbackDeps;
  repair: RepairDeps;
  hitCounts: { flushAll(): Promise<void> };
}

const FOLLOW_UP_CONCURRENCY = 4;

export interface Background {
  pollingActive(): boolean;
  stop(): Promise<void>;
}

/**
 * The work that runs beside the HTTP server: job handlers, the signal consumer and chat
 * long polling. Started once the app is ready; stopped before the adapters close.
 */
export async function startBackground(parts: BackgroundParts): Promise<Background> {
  const { services, intake, cards, callbacks, repair } = parts;
  const { config, jobs, chat } = services;
  const evaluateRepair = async (approvalId: string) => {
    await enqueueRepairEvaluation(services, approvalId);
  };
  jobs.process(
    ANALYZE_ISSUE_JOB,
    (payload) => analyzeIssue(services, cards, evaluateRepair, payload as AnalyzeIssueJob),
    ANALYZER_LIMITS.concurrency,
  );
  jobs.process(
    ANALYZE_INCIDENT_JOB,
    (payload) => followNewIncident(services, cards, evaluateRepair, String(payload.incident_id)),
    FOLLOW_UP_CONCURRENCY,
  );
  jobs.process(
    EXECUTE_APPROVAL_JOB,
    async (payload) => {
      await executeApprovedPlaybook(
        services,
        repair,
        String(payload.approval_id),
        String(payload.actor),
      );
    },
    FOLLOW_UP_CONCURRENCY,
  );
  registerRepairJobs(services, repair);
  const analysis = startAnalysisWork(services);
  await jobs.start();
  const stopConsumer = config.signalConsumer ? startSignalConsumer(services, intake) : undefined;
  let polling: LongPolling | undefined;
  if (chat.configured && config.chatPolling) polling = startLongPolling(callbacks);
  return {
    pollingActive: () => polling?.active() ?? false,
    async stop() {
      await analysis.stop();
      await polling?.stop();
      await stopConsumer?.();
      await parts.hitCounts.flushAll();
    },
  };
}
