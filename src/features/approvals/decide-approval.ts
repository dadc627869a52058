import type { Tx } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { secondSignerCard } from '../cards/approval-card.js';
import {
  cardsOfApproval,
  consumeCardNonce,
  decodeStoredCard,
  isCardNonceUsed,
} from '../cards/card-records.js';
import type { CardSender } from '../cards/card-types.js';
import { publishEvent } from '../events/feed-events.js';
import { incidentStatusOf } from '../incidents/incident-records.js';
import { decisionsOf } from './approval-decision-records.js';
import type { ApprovalStatus } from './approval-domain.js';
import {
  type DecisionRefusal,
  type DecisionToken,
  rejectApproval,
  signApproval,
} from './approval-moves.js';
import { findApproval } from './approval-records.js';
import { addExpiredCardsJob, announceExpiredApproval } from './expired-approval.js';

/** The services this file's functions use. */
type DecideApprovalServices = Pick<
  Services,
  | 'chat'
  | 'clock'
  | 'config'
  | 'failures'
  | 'feed'
  | 'jobs'
  | 'leases'
  | 'log'
  | 'metrics'
  | 'operatorKeyFailures'
  | 'oplog'
  | 'followUps'
  | 'outbox'
  | 'store'
>;

/**
 * An approved approval's playbook run: committed in the decision's transaction, handed to
 * the queue after its commit (repair/approved-playbook-run.ts).
 */
export interface ApprovedExecution {
  addWith(tx: Tx, approvalId: string, who: Decider, now: number): Promise<void>;
  relay(approvalId: string, who: Decider): Promise<void>;
}

/** What a decision needs: the services, the chat's cards and the approved run. */
export interface DecisionDeps {
  services: DecideApprovalServices;
  cards: CardSender;
  execution: ApprovedExecution;
}

/** Who decides, and through which channel (`chat`, `console`, `auto-repair`). */
export interface Decider {
  actor: string;
  channel: string;
}

export type DecisionResult =
  | { ok: true; status: ApprovalStatus; execution_triggered: boolean; signers: string[] }
  | { ok: false; refusal: DecisionRefusal; expiredBy?: string };

/**
 * CONTRACT, Approvals, for every channel (chat, console): one signature approves, critical
 * needs two distinct signers (the same signer cannot sign twice), nothing changes a decided
 * approval. An approval's execution commits with the decision (approved-execution.ts); the
 * cards show the decision, and the feed hears of it. `cardNonce`, the chat card pressed, is
 * used by the decision and only by one that counts (CONTRACT, Under races, crashes and
 * abuse: a refused callback consumes no nonce).
 */
export async function decideApproval(
  deps: DecisionDeps,
  approvalId: string,
  action: 'approve' | 'reject',
  who: Decider,
  cardNonce?: string,
): Promise<DecisionResult> {
  const { services, cards } = deps;
  const now = services.clock.now();
  const decider = { ...who, now };
  const token = cardNonce === undefined ? undefined : cardToken(cardNonce, now);
  // CONTRACT, Under races, crashes and abuse, Resolving: either decision expires the pending
  // approval of a resolved incident, and its cards close as after the resolve.
  const onResolved = {
    incidentResolvedBy: resolverOf,
    onExpired: (tx: Tx, resolvedBy: string) =>
      addExpiredCardsJob(services, tx, approvalId, resolvedBy, now),
  };
  const outcome =
    action === 'approve'
      ? await signApproval(
          services.store,
          approvalId,
          decider,
          { ...onResolved, onApproved: (tx) => deps.execution.addWith(tx, approvalId, who, now) },
          token,
        )
      : await rejectApproval(services.store, approvalId, decider, onResolved, token);
  if (!outcome.ok) {
    if (outcome.expiredBy !== undefined) {
      await announceExpiredApproval(deps, approvalId, outcome.expiredBy, now);
    }
    return outcome;
  }
  publishEvent(services, 'approval.updated', {
    approval_id: approvalId,
    status: outcome.status,
    decision: action,
    actor: who.actor,
    channel: who.channel,
  });
  if (outcome.status === 'approved') {
    await deps.execution.relay(approvalId, who);
    await cards.markDecided(approvalId, 'Approved', who.actor);
  } else if (outcome.status === 'rejected') {
    await cards.markDecided(approvalId, 'Rejected', who.actor);
  } else {
    await askSecondSigner(deps, approvalId, who.actor);
  }
  return outcome;
}

/** The first signer's card reads "First of two signatures by <signer> · <time>". */
const FIRST_SIGNATURE = 'First of two signatures';

/**
 * CONTRACT: critical approvals need two distinct signers. The first signer's card used its
 * nonce, so it is closed and a fresh card (a new nonce) goes out for the second signer, only
 * while the approval is still pending: a second signer elsewhere may have approved it
 * meanwhile, and a card pushed as that happened is closed again at once.
 */
async function askSecondSigner(deps: DecisionDeps, approvalId: string, actor: string) {
  const { services, cards } = deps;
  const db = services.store.db;
  await cards.markDecided(approvalId, FIRST_SIGNATURE, actor);
  if (!(await stillPending(services, approvalId))) return;
  // A card still on its way counts too: its sender shows the signature once it is sent.
  const latest = (await cardsOfApproval(db, approvalId))
    .map((row) => decodeStoredCard(row.text))
    .reverse()
    .find((card) => card.params);
  if (!latest?.params) return;
  await cards.push(secondSignerCard(latest.params, actor));
  const after = await findApproval(db, approvalId);
  if (after && after.status !== 'pending') {
    const decisions = await decisionsOf(db, approvalId);
    const decidedBy = decisions.findLast((row) => row.decision !== 'move')?.actor ?? actor;
    await cards.markDecided(approvalId, capitalized(after.status), decidedBy);
  }
}

/** Who resolved the incident, null while it is not resolved (or is gone). */
async function resolverOf(tx: Tx, incidentId: string): Promise<string | null> {
  const incident = await incidentStatusOf(tx, incidentId);
  return incident?.status === 'resolved' ? (incident.resolved_by ?? 'lifecycle') : null;
}

function cardToken(nonce: string, now: number): DecisionToken {
  return {
    isUsed: (tx) => isCardNonceUsed(tx, nonce),
    use: (tx) => consumeCardNonce(tx, nonce, now),
  };
}

async function stillPending(
  services: DecideApprovalServices,
  approvalId: string,
): Promise<boolean> {
  return (await findApproval(services.store.db, approvalId))?.status === 'pending';
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
