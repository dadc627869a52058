import type { Services } from '../../services.js';
import { evaluateAutoRepair, type RepairDeps } from './auto-repair.js';

/** Job name (no ':', JobQueue.process); payload `{approval_id}`. */
export const EVALUATE_REPAIR_JOB = 'repair.evaluate';
/** Playbooks mostly wait on the cluster (`rollout status`); a few at once is plenty. */
export const REPAIR_JOB_CONCURRENCY = 2;

/**
 * Registers the evaluation job; call before `services.jobs.start()`. Executing an approved
 * approval is the approvals feature's job (approval-moves.ts, EXECUTE_APPROVAL_JOB), whose
 * handler calls executeApprovedPlaybook.
 */
export function registerRepairJobs(services: Services, deps: RepairDeps): void {
  services.jobs.process(
    EVALUATE_REPAIR_JOB,
    async (payload) => {
      const approvalId = payload.approval_id;
      if (typeof approvalId !== 'string' || approvalId === '') {
        // A malformed payload never becomes valid on a retry, so it is logged and dropped.
        services.log.error({ payload }, `${EVALUATE_REPAIR_JOB} job without approval_id`);
        return;
      }
      await evaluateAutoRepair(services, deps, approvalId);
    },
    REPAIR_JOB_CONCURRENCY,
  );
}

/**
 * spec, What the service does (4): "After an approval is created, evaluates an automatic
 * repair in the background". The job id makes a second enqueue of one approval a no-op while
 * the first is queued; evaluateAutoRepair itself refuses a second evaluation afterwards.
 */
export function enqueueRepairEvaluation(services: Services, approvalId: string): Promise<string> {
  return services.jobs.enqueue(
    EVALUATE_REPAIR_JOB,
    { approval_id: approvalId },
    { jobId: `repair-evaluate-${approvalId}` },
  );
}
