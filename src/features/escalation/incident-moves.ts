import type { Services } from '../../services.js';
import { crashPoint } from '../../support/crash-point.js';
import { approvalLock, moveApprovalIn } from '../approvals/approval-moves.js';
import type { CardSender } from '../cards/card-types.js';
import { publishEvent } from '../events/feed-events.js';
import { findIncident, type IncidentStatus, moveIncident } from '../incidents/incident-records.js';
import { addTimelineEntries } from '../incidents/incident-timeline-records.js';
import { addExpiredCardsJob, announceExpiredApproval } from './expired-approval.js';

/** The services this file's functions use. */
type IncidentMovesServices = Pick<
  Services,
  'clock' | 'feed' | 'jobs' | 'log' | 'metrics' | 'followUps' | 'outbox' | 'store'
>;

/** Why a move changed nothing: the incident is not there, or is past that move already. */
export type MoveRefusal = 'not_found' | 'already_acknowledged' | 'already_resolved';
export type MoveResult = { ok: true } | { ok: false; refusal: MoveRefusal };

interface MoveDeps {
  services: IncidentMovesServices;
  cards: CardSender;
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
  { services }: MoveDeps,
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
 * the job that closes the approval's cards commits with them (expired-approval.ts).
 * An incident's approval is fixed when it opens, so it is read before the lock is taken.
 * `silentSince` (the timeout's): resolve only if its last alert is still older than that
 * once its row is locked.
 */
export async function resolveIncident(
  { services, cards }: MoveDeps,
  incidentId: string,
  actor: string,
  silentSince?: number,
): Promise<MoveResult> {
  const now = services.clock.now();
  const incident = await findIncident(services.store.db, incidentId);
  if (!incident) return { ok: false, refusal: 'not_found' };
  if (incident.status === 'resolved') return { ok: false, refusal: 'already_resolved' };
  const approvalId = incident.approval_id;
  const lifecycle = { actor, channel: 'lifecycle', now };
  const moved = await services.store.withLock(
    approvalId ? [approvalLock(approvalId)] : [],
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
        approvalId !== null &&
        (await moveApprovalIn(tx, approvalId, ['pending'], 'expired', lifecycle));
      if (expired) await addExpiredCardsJob(services, tx, approvalId, actor, now);
      return { expired };
    },
  );
  if (!moved) return refusalFor(services, incidentId);
  crashPoint('resolve:after-commit');
  publishEvent(services, 'incident.resolved', { incident_id: incidentId, actor });
  if (approvalId && moved.expired) {
    await announceExpiredApproval({ services, cards }, approvalId, actor, now);
  }
  return { ok: true };
}
