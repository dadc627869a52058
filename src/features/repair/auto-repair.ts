import type { Services } from '../../services.js';
import type { IncidentRow } from '../incidents/incident-records.js';
import type { TimedEntry } from '../oplog/operation-entry.js';
import { lookUpRealSuccesses } from '../oplog/playbook-run-counts.js';
import { matchPlaybook } from './playbooks.js';
import { loadRepairCase } from './repair-case.js';
import { decideRepair, type RepairDecision } from './repair-decision.js';
import type { RepairDeps } from './repair-deps.js';
import { executionEntry, playSteps } from './run-playbook.js';
import { runToEnd } from './run-to-end.js';

/** The services this file's functions use. */
type AutoRepairServices = Pick<Services, 'clock' | 'config' | 'log' | 'oplog' | 'store'>;

/** CONTRACT, Auto-repair: automatic moves are made "with actor `auto-repair`". */
export const AUTO_REPAIR_ACTOR = 'auto-repair';

/**
 * spec, What the service does (4): evaluates an automatic repair after an approval is created.
 * Writes AUTO_REPAIR_TRIGGERED with the decision; when allowed, runs the playbook. A dry run
 * leaves the approval `pending`; a real executor moves it `pending` → `executing` →
 * `executed`/`failed` as `auto-repair` (CONTRACT, Auto-repair). Returns null when it did not
 * evaluate: the approval is gone, no longer `pending`, or was evaluated before. `incidentRead`:
 * its incident, when the caller has just read it (loadRepairCase).
 */
export async function evaluateAutoRepair(
  services: AutoRepairServices,
  deps: RepairDeps,
  approvalId: string,
  incidentRead?: IncidentRow,
): Promise<RepairDecision | null> {
  const { store, clock, log } = services;
  const repair = await loadRepairCase(store.db, approvalId, incidentRead);
  if (repair?.approval.status !== 'pending') {
    log.info({ approvalId, status: repair?.approval.status }, 'auto-repair skipped');
    return null;
  }
  const match = matchPlaybook(deps.playbooks, repair.subject);
  const decision = decideRepair({
    severity: repair.severity,
    risk_level: repair.approval.risk_level,
    match,
    successfulRuns: match ? ((await lookUpRealSuccesses(store.db, match.playbook.id)) ?? 0) : 0,
  });
  // A dry run changes nothing, so it is played before the claim and its record written in
  // the claim's own transaction: one lock and one commit for the decision and the run.
  const dryRun =
    decision.can_auto_repair && match && !deps.executor.changesState
      ? await playSteps(
          { executor: deps.executor, kubectlContext: services.config.kubectlContext },
          match.playbook,
          repair.target,
        )
      : undefined;
  // At most one evaluation per approval, even when a job repeats or two run at once. The
  // AUTO_REPAIR_TRIGGERED entry is the claim: checked and written in one transaction under the
  // log's lock, so no crash can leave a claim without its entry (the approval is then simply
  // evaluated again) or an entry twice.
  const entries: TimedEntry[] = [
    {
      entry: {
        type: 'AUTO_REPAIR_TRIGGERED',
        incidentId: repair.target.incident_id,
        approvalId,
        actor: AUTO_REPAIR_ACTOR,
        actionDetail: decision.can_auto_repair
          ? `Auto-repair allowed: playbook ${decision.playbook?.id}`
          : `Auto-repair blocked (${decision.blocked_by}): ${decision.reason}`,
        success: decision.can_auto_repair,
        errorMessage: null,
        context: { decision, subject: repair.subject, executor: deps.executor.name },
      },
      now: clock.now(),
    },
  ];
  if (dryRun && match) {
    const steps = match.playbook.steps.length;
    const entry = executionEntry(deps.executor, dryRun, repair.target, AUTO_REPAIR_ACTOR, steps);
    entries.push({ entry, now: clock.now() });
  }
  const claimed = await services.oplog.appendOncePerApproval({
    approvalId,
    type: 'AUTO_REPAIR_TRIGGERED',
    entries,
  });
  if (!claimed) return null;
  if (!decision.can_auto_repair || !match) return decision;

  const settles = deps.executor.changesState;
  if (settles) {
    const moved = await deps.moveApproval(
      approvalId,
      ['pending'],
      'executing',
      AUTO_REPAIR_ACTOR,
      AUTO_REPAIR_ACTOR,
    );
    // A person decided between our read and the move; their decision stands.
    if (!moved) return decision;
  }
  await runToEnd(services, deps, repair, match.playbook, AUTO_REPAIR_ACTOR, {
    channel: settles ? AUTO_REPAIR_ACTOR : null,
    decision,
    ran: dryRun,
  });
  return decision;
}
