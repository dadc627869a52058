import { Type } from 'typebox';
import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import type { CardSender } from '../cards/card-types.js';
import { publishEvent } from '../events/feed-events.js';
import type { ApprovalsOnResolve } from '../incidents/incident-moves.js';
import { jobKind, jobOf, processJobs } from '../outbox/job-kind.js';
import { approvalLock, moveApprovalIn } from './approval-moves.js';

/** The services this file's functions use. */
type ExpiredApprovalServices = Pick<
  Services,
  'feed' | 'jobs' | 'log' | 'metrics' | 'followUps' | 'outbox' | 'store'
>;

/**
 * What follows an approval expired because its incident resolved (by the resolve itself, or
 * by a decision that found the incident resolved): the feed hears of it and its cards lose
 * their buttons, saying so.
 *
 * CONTRACT, Under races, crashes and abuse: "a crash at any instant leaves no half-done state
 * that nobody completes". The cards are closed at once after the commit, and also by a job
 * committed with the expiry (follow-up-writer.ts): a process killed between the commit and
 * the edit leaves the job, which a live replica, or this one restarted, runs. The job finds
 * cards already closed with that decision and leaves them alone.
 */
export const INCIDENT_RESOLVED_DECISION = 'Incident resolved';
/** Card edits wait on the chat's rate limit anyway; a few side by side is plenty. */
const EXPIRED_CARDS_CONCURRENCY = 4;

/** An approval expires once, so one job each. */
export const EXPIRED_CARDS_JOB = jobKind(
  'approval.expired-cards',
  Type.Object({
    approval_id: Type.String({ minLength: 1 }),
    actor: Type.String(),
    /** When it expired: the decision line every edit of the cards shows, the same each time. */
    at: Type.Number(),
  }),
  (payload) => `expired-cards-${payload.approval_id}`,
);

export interface ExpiryDeps {
  services: ExpiredApprovalServices;
  cards: CardSender;
}

/** In the transaction that expires the approval: the job that closes its cards. */
export function addExpiredCardsJob(
  services: ExpiredApprovalServices,
  tx: Tx,
  approvalId: string,
  actor: string,
  now: number,
): Promise<void> {
  const payload = { approval_id: approvalId, actor, at: now };
  return services.followUps.add(tx, [jobOf(EXPIRED_CARDS_JOB, payload)], now);
}

/**
 * Once the expiry committed: the feed event, the cards closed now (promptly, without a trip
 * through the queue), then the job handed to the queue, which finds them closed.
 */
export async function announceExpiredApproval(
  { services, cards }: ExpiryDeps,
  approvalId: string,
  actor: string,
  now: number,
): Promise<void> {
  publishEvent(services, 'approval.updated', {
    approval_id: approvalId,
    status: 'expired',
    actor,
    channel: 'lifecycle',
  });
  await cards.markDecided(approvalId, INCIDENT_RESOLVED_DECISION, actor, now);
  const payload = { approval_id: approvalId, actor, at: now };
  await services.followUps.relay([jobOf(EXPIRED_CARDS_JOB, payload)]);
}

export function registerExpiredCardsWorker(
  services: ExpiredApprovalServices,
  cards: CardSender,
): void {
  processJobs(
    services,
    EXPIRED_CARDS_JOB,
    async (payload) => {
      await cards.markDecided(
        payload.approval_id,
        INCIDENT_RESOLVED_DECISION,
        payload.actor,
        payload.at,
      );
      await services.outbox.complete(EXPIRED_CARDS_JOB.idOf(payload));
    },
    EXPIRED_CARDS_CONCURRENCY,
  );
}

/** What resolving an incident does to its pending approval (incidents/incident-moves.ts). */
export function approvalsOnResolve(deps: ExpiryDeps): ApprovalsOnResolve {
  return {
    lockOf: approvalLock,
    async expireWith(tx, approvalId, actor, now) {
      const lifecycle = { actor, channel: 'lifecycle', now };
      const expired = await moveApprovalIn(tx, approvalId, ['pending'], 'expired', lifecycle);
      if (expired) await addExpiredCardsJob(deps.services, tx, approvalId, actor, now);
      return expired;
    },
    announceExpired: (approvalId, actor, now) =>
      announceExpiredApproval(deps, approvalId, actor, now),
  };
}
