import { ANALYZER_LIMITS } from './adapters/analyzers/resilient-analyzer.js';
import type { CallbackDeps } from './features/chat/callback-handler.js';
import type { CardSender } from './features/chat/card-types.js';
import { type LongPolling, startLongPolling } from './features/chat/long-polling.js';
import { analyzeIssue } from './features/errtracker/analyze-issue.js';
import { ANALYZE_ISSUE_JOB, type AnalyzeIssueJob } from './features/errtracker/tracker-webhook.js';
import type { AlertIntake } from './features/intake/alert-intake.js';
import { startSignalConsumer } from './features/intake/signal-consumer.js';
import type { Services } from './services.js';

export interface BackgroundParts {
  services: Services;
  intake: AlertIntake;
  cards: CardSender;
  callbacks: CallbackDeps;
}

export interface Background {
  pollingActive(): boolean;
  stop(): Promise<void>;
}

/**
 * The work that runs beside the HTTP server: job handlers, the signal consumer and chat
 * long polling. Started once the app is ready; stopped before the adapters close.
 */
export async function startBackground(parts: BackgroundParts): Promise<Background> {
  const { services, intake, cards, callbacks } = parts;
  const { config, jobs, chat } = services;
  jobs.process(
    ANALYZE_ISSUE_JOB,
    (payload) => analyzeIssue(services, cards, payload as AnalyzeIssueJob),
    ANALYZER_LIMITS.concurrency,
  );
  await jobs.start();
  const stopConsumer = config.signalConsumer ? startSignalConsumer(services, intake) : undefined;
  let polling: LongPolling | undefined;
  if (chat.configured && config.chatPolling) polling = startLongPolling(callbacks);
  return {
    pollingActive: () => polling?.active() ?? false,
    async stop() {
      await polling?.stop();
      await stopConsumer?.();
    },
  };
}
