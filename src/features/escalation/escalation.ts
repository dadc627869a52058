import type { DecisionDeps } from '../approvals/decide-approval.js';
import { approvalsOnResolve, registerExpiredCardsWorker } from '../approvals/expired-approval.js';
import { createCardSender } from '../cards/card-sender.js';
import type { CardSender } from '../cards/card-types.js';
import { createHitCountRefresher } from '../cards/hit-count-refresher.js';
import type { IncidentMoveDeps } from '../incidents/incident-moves.js';
import { startIncidentTimeout } from '../incidents/incident-timeout.js';
import { approvedPlaybookRuns, registerExecutionWorker } from '../repair/approved-playbook-run.js';
import type { Playbook } from '../repair/playbooks.js';
import type { RepairDeps } from '../repair/repair-deps.js';
import {
  type RepairJobsServices,
  registerRepairWorkers,
  repairDeps,
} from '../repair/repair-jobs.js';
import { registerIncidentWorkers } from './incident-followup.js';

/**
 * What happens after an incident or tracker issue opens, put together once: its card, the
 * repair evaluation, the decisions of every channel and the approved execution, and what a
 * resolve does to the incident's approval. The entry points (intake, the error tracker,
 * chat, the console) take what they need from here.
 */
export interface Escalation {
  cards: CardSender;
  /** For the decision routes and chat callbacks. */
  decisions: DecisionDeps;
  /** For the incident routes, the timeout sweep and whatever resolves an incident. */
  incidentMoves: IncidentMoveDeps;
  repair: RepairDeps;
  /** Intake's hook: a converged alert's new hit count, shown on its card. */
  onConverged(approvalId: string, hitCount: number): void;
  /** Registers the escalation's jobs; call before `services.jobs.start()`. */
  registerWorkers(): void;
  /** Starts the escalation's own loops (the incident timeout sweep). */
  startLoops(): { stop(): Promise<void> };
  /** Sends the hit counts still waiting (at shutdown). */
  flush(): Promise<void>;
}

export function createEscalation(
  services: DecisionDeps['services'] & RepairJobsServices,
  playbooks: readonly Playbook[],
): Escalation {
  const cards = createCardSender(services);
  const hitCounts = createHitCountRefresher(cards);
  const repair = repairDeps(services, playbooks);
  const incidentMoves = { services, approvals: approvalsOnResolve({ services, cards }) };
  return {
    cards,
    decisions: { services, cards, execution: approvedPlaybookRuns(services) },
    incidentMoves,
    repair,
    onConverged(approvalId, hitCount) {
      if (services.chat.configured) hitCounts.note(approvalId, hitCount);
    },
    registerWorkers() {
      registerIncidentWorkers(services, cards, repair);
      registerRepairWorkers(services, repair);
      registerExecutionWorker(services, repair);
      registerExpiredCardsWorker(services, cards);
    },
    startLoops: () => startIncidentTimeout(incidentMoves),
    flush: () => hitCounts.flushAll(),
  };
}
