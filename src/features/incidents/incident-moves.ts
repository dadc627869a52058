import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { crashPoint } from '../../support/crash-point.js';
import { publishEvent } from '../events/feed-events.js';
import { findIncident, type IncidentStatus, moveIncident } from './incident-records.js';
import { addTimelineEntries } from './incident-timeline-records.js';

/** The services this file's functions use. */
type IncidentMovesServices = Pick<
  Services,
  'clock' | 'config' | 'feed' | 'jobs' | 'log' | 'metrics' | 'followUps' | 'outbox' | 'store'
>;

/** Why a move changed nothing: the incident is not there, or is past that move already. */
export type MoveRefusal = 'not_found' | 'already_acknowledged' | 'already_resolved';
export type MoveResult = { ok: true } | { ok: false; refusal: MoveRefusal };

/**
 * What a resolve does to the incident's pending approval, supplied by approvals
 * (approvals/expired-approval.ts): the lock every move of it takes, its expiry in the
 * resolve's transaction, and what follows the commit.
 */
export interface ApprovalsOnResolve {
  lockOf(approvalId: string): string;
  /** Expires the approval when it is still pending; true when it did. */
  expireWith(tx: Tx, approvalId: string, actor: string, now: number): Promise<boolean>;
  announceExpired(approvalId: string, actor: string, now: number): Promise<void>;
}

export interface IncidentMoveDeps {
  services: IncidentMovesServices;
  approvals: ApprovalsOnResolve;
}

async function refusalFor(
  services: IncidentMovesServices,
  incidentId: string,
): Promise<MoveResult> {
  const incident = await findIncident(services.store.db, incidentId);
  if (!incident) return { ok: false, refusal: 'not_found' };
  return {
    ok: false,
    refusal: incident.status === 'resolved' ? 'already_resolved' : 'already_acknowledged',
  };
}

/** CONTRACT, Incident lifecycle: `open` → `acknowledged`, by an operator. */
export async function acknowledgeIncident(
  { services }: IncidentMoveDeps,
  incidentId: string,
  actor: string,
): Promise<MoveResult> {
  const now = services.clock.now();
  const moved = await services.store.db.transaction().execute(async (tx) => {
    const done = await moveIncident(tx, incidentId, ['open'], 'acknowledged', {
      acknowledged_by: actor,
      acknowledged_at: now,
    });
    if (done) await addTimelineEntries(tx, [{ incidentId, at: now, event: 'acknowledged', actor }]);
    return done;
  });
  if (!moved) return refusalFor(services, incidentId);
  publishEvent(services, 'incident.acknowledged', { incident_id: incidentId, actor });
  return { ok: true };
}

const UNRESOLVED: readonly IncidentStatus[] = ['open', 'acknowledged'];

/**
 * CONTRACT, Incident lifecycle: resolving (an operator, a resolved alert, the timeout, a
 * heartbeat's next beat) happens once; then the incident's pending approval expires, which
 * stops an auto-repair that has not started executing (it acts on pending approvals only),
 * and its cards say so, without buttons.
 *
 * CONTRACT, Under races, crashes and abuse, Resolving: the status, the approval's expiry
 * and the timeline entry commit in one transaction, under the approval's lock as every move
 * of it is, so a crash never leaves a resolved incident with an approval still to approve;
 * the job that closes the approval's cards commits with them (approvals/expired-approval.ts).
 * An incident's approval is fixed when it opens, so it is read before the lock is taken.
 * `silentSince` (the timeout's): resolve only if its last alert is still older than that
 * once its row is locked.
 */
export async function resolveIncident(
  { services, approvals }: IncidentMoveDeps,
  incidentId: string,
  actor: string,
  silentSince?: number,
): Promise<MoveResult> {
  const now = services.clock.now();
  const incident = await findIncident(services.store.db, incidentId);
  if (!incident) return { ok: false, refusal: 'not_found' };
  if (incident.status === 'resolved') return { ok: false, refusal: 'already_resolved' };
  const approvalId = incident.approval_id;
  const moved = await services.store.withLock(
    approvalId ? [approvals.lockOf(approvalId)] : [],
    async (tx) => {
      const done = await moveIncident(
        tx,
        incidentId,
        UNRESOLVED,
        'resolved',
        { resolved_by: actor, resolved_at: now },
        silentSince,
      );
      if (!done) return undefined;
      await addTimelineEntries(tx, [{ incidentId, at: now, event: 'resolved', actor }]);
      crashPoint('resolve:before-approval-expiry');
      const expired =
        approvalId !== null && (await approvals.expireWith(tx, approvalId, actor, now));
      return { expired };
    },
  );
  if (!moved) return refusalFor(services, incidentId);
  crashPoint('resolve:after-commit');
  publishEvent(services, 'incident.resolved', { incident_id: incidentId, actor });
  if (approvalId && moved.expired) {
    await approvals.announceExpired(approvalId, actor, now);
  }
  return { ok: true };
}
