import { startAnalysisWork } from './features/analysis/analysis-work.js';
import { startLeasedPolling } from './features/chat/leased-polling.js';
import type { LongPolling } from './features/chat/long-polling.js';
import { registerErrtrackerWorkers } from './features/errtracker/issue-analysis-job.js';
import type { Escalation } from './features/escalation/escalation.js';
import type { HeartbeatWatch } from './features/heartbeats/heartbeat-watch.js';
import type { AlertIntake } from './features/intake/alert-intake.js';
import { ensureSignalGroup, startSignalConsumer } from './features/intake/signal-consumer.js';
import type { Services } from './services.js';

export interface BackgroundParts {
  services: Services;
  intake: AlertIntake;
  escalation: Escalation;
  heartbeats: HeartbeatWatch;
}

export interface Background {
  pollingActive(): boolean;
  stop(): Promise<void>;
}

/**
 * The work that runs beside the HTTP server, each feature registering its own: job workers,
 * the signal consumer and chat long polling. Started once the app is ready; stopped before
 * the adapters close.
 */
export async function startBackground(parts: BackgroundParts): Promise<Background> {
  const { services, intake, escalation } = parts;
  const { config, jobs, chat } = services;
  registerErrtrackerWorkers(services, escalation.cards);
  escalation.registerWorkers();
  parts.heartbeats.registerWorker();
  const loops = escalation.startLoops();
  const heartbeatSweep = parts.heartbeats.start();
  const analysis = startAnalysisWork(services);
  await jobs.start();
  // Follow-up jobs committed but not yet enqueued: left by a crash or a queue outage.
  const outbox = services.outbox.startRelay();
  // The signal backlog is counted against the consumers' group even while they run elsewhere.
  await ensureSignalGroup(services);
  const stopConsumer = config.signalConsumer ? startSignalConsumer(services, intake) : undefined;
  let polling: LongPolling | undefined;
  // Every replica may keep CHAT_POLLING=true: only the lease holder polls.
  if (chat.configured && config.chatPolling) polling = startLeasedPolling(escalation.decisions);
  return {
    pollingActive: () => polling?.active() ?? false,
    async stop() {
      await analysis.stop();
      await loops.stop();
      await heartbeatSweep.stop();
      await outbox.stop();
      await polling?.stop();
      await stopConsumer?.();
      await escalation.flush();
    },
  };
}
