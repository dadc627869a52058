import type { Store, Tx } from '../../ports/store.js';
import { approversOf, insertDecision } from './approval-decision-records.js';
import type { ApprovalStatus } from './approval-domain.js';
import { approvalStateOf, setApprovalStatus } from './approval-records.js';

/** The lock name every move of an approval holds (Store.withLock). */
export const approvalLock = (approvalId: string) => `approval:${approvalId}`;

/** CONTRACT, Approvals: critical risk needs two distinct signers; the rest need one. */
export function signersNeeded(riskLevel: string): number {
  return riskLevel === 'critical' ? 2 : 1;
}

/** Why a decision changed nothing: a closed set, worded for each channel in one place. */
export type DecisionRefusal =
  | { reason: 'not_found' }
  | { reason: 'already_decided'; status: string }
  | { reason: 'same_signer'; actor: string }
  | { reason: 'card_used' };

/**
 * What a decision uses up besides the approval (a chat card's nonce), checked and used under
 * the approval's lock. CONTRACT, Under races, crashes and abuse: a refused decision uses
 * nothing, so `isUsed` comes first and `use` only once every check has passed.
 */
export interface DecisionToken {
  isUsed(tx: Tx): Promise<boolean>;
  /** False when another caller used it first: the decision is then refused, nothing recorded. */
  use(tx: Tx): Promise<boolean>;
}

export type DecisionOutcome =
  | { ok: true; status: ApprovalStatus; execution_triggered: boolean; signers: string[] }
  | {
      ok: false;
      refusal: DecisionRefusal;
      /** Set when this decision expired the approval on its incident's resolver's behalf. */
      expiredBy?: string;
    };

export interface Decider {
  actor: string;
  /** `chat`, `api`, `auto-repair` */
  channel: string;
  now: number;
}

async function recordDecision(
  tx: Tx,
  approvalId: string,
  decider: Decider,
  decision: string,
  from: string,
  to: string,
) {
  await insertDecision(tx, {
    approval_id: approvalId,
    actor: decider.actor,
    decision,
    channel: decider.channel,
    from_status: from,
    to_status: to,
    created_at: decider.now,
  });
}

type PendingLookup =
  | { found: true; riskLevel: string; incidentId: string | null }
  | { found: false; refusal: DecisionRefusal };

async function pendingApproval(
  tx: Tx,
  approvalId: string,
  token: DecisionToken | undefined,
): Promise<PendingLookup> {
  // A used card answers as used whatever became of its approval (spec, Callback handling order).
  if (token && (await token.isUsed(tx))) return { found: false, refusal: { reason: 'card_used' } };
  const approval = await approvalStateOf(tx, approvalId);
  if (!approval) return { found: false, refusal: { reason: 'not_found' } };
  if (approval.status !== 'pending') {
    return { found: false, refusal: { reason: 'already_decided', status: approval.status } };
  }
  return { found: true, riskLevel: approval.risk_level, incidentId: approval.incident_id };
}

export interface DecisionHooks {
  /**
   * Who resolved the approval's incident, read in the decision's transaction; null while it
   * is unresolved. A resolved incident's approval is expired, never approved or rejected.
   */
  incidentResolvedBy?: (tx: Tx, incidentId: string) => Promise<string | null>;
  /**
   * Runs in the decision's transaction when it found the incident resolved and expired the
   * approval on its resolver's behalf: what must follow that expiry (closing its cards)
   * commits with it, as after the resolve itself.
   */
  onExpired?: (tx: Tx, resolvedBy: string) => Promise<void>;
}

export interface SignHooks extends DecisionHooks {
  /**
   * Runs in the decision's transaction when this signature approves: what must follow an
   * approval (its execution) commits with it or not at all.
   */
  onApproved?: (tx: Tx) => Promise<void>;
}

type PendingFound = Extract<PendingLookup, { found: true }>;

/**
 * What every decision does first, under the approval's lock: refuse a used card or an
 * approval no longer pending; then, CONTRACT, Under races, crashes and abuse, Resolving: an
 * approval still pending for an incident already resolved (written before resolving expired
 * it in the same transaction) is expired here on its resolver's behalf and the decision
 * refused, as after the resolve (`expiredBy` names the resolver). Otherwise `decide` runs.
 */
function decidePending(
  store: Store,
  approvalId: string,
  decider: Decider,
  hooks: DecisionHooks,
  token: DecisionToken | undefined,
  decide: (tx: Tx, found: PendingFound) => Promise<DecisionOutcome>,
): Promise<DecisionOutcome> {
  return store.withLock(approvalLock(approvalId), async (tx) => {
    const found = await pendingApproval(tx, approvalId, token);
    if (!found.found) return { ok: false, refusal: found.refusal };
    const resolvedBy =
      found.incidentId !== null && hooks.incidentResolvedBy
        ? await hooks.incidentResolvedBy(tx, found.incidentId)
        : null;
    if (resolvedBy !== null) {
      await expireIn(tx, approvalId, { actor: resolvedBy, channel: 'lifecycle', now: decider.now });
      await hooks.onExpired?.(tx, resolvedBy);
      return {
        ok: false,
        refusal: { reason: 'already_decided', status: 'expired' },
        expiredBy: resolvedBy,
      };
    }
    return decide(tx, found);
  });
}

/**
 * CONTRACT, Approvals: one signature approves; critical needs two distinct signers (the
 * first leaves it pending, and the same signer cannot sign twice); acting on a non-pending
 * approval is refused. Under the approval's lock, so two approvers at once never both
 * approve it. `token` (the card pressed) is used only by a signature that counts.
 */
export function signApproval(
  store: Store,
  approvalId: string,
  decider: Decider,
  hooks: SignHooks = {},
  token?: DecisionToken,
): Promise<DecisionOutcome> {
  return decidePending(store, approvalId, decider, hooks, token, async (tx, found) => {
    const earlier = await approversOf(tx, approvalId);
    if (earlier.includes(decider.actor)) {
      return { ok: false, refusal: { reason: 'same_signer', actor: decider.actor } };
    }
    if (token && !(await token.use(tx))) return { ok: false, refusal: { reason: 'card_used' } };
    const signers = [...earlier, decider.actor];
    const approved = signers.length >= signersNeeded(found.riskLevel);
    const to: ApprovalStatus = approved ? 'approved' : 'pending';
    await recordDecision(tx, approvalId, decider, 'approve', 'pending', to);
    if (approved) {
      await setApprovalStatus(tx, approvalId, 'approved', decider.now);
      await hooks.onApproved?.(tx);
    }
    return { ok: true, status: to, execution_triggered: approved, signers };
  });
}

async function expireIn(tx: Tx, approvalId: string, decider: Decider) {
  await setApprovalStatus(tx, approvalId, 'expired', decider.now);
  await recordDecision(tx, approvalId, decider, 'move', 'pending', 'expired');
}

/** CONTRACT, Approvals: "One rejection rejects." (of an approval still pending, as signing) */
export function rejectApproval(
  store: Store,
  approvalId: string,
  decider: Decider,
  hooks: DecisionHooks = {},
  token?: DecisionToken,
): Promise<DecisionOutcome> {
  return decidePending(store, approvalId, decider, hooks, token, async (tx) => {
    if (token && !(await token.use(tx))) return { ok: false, refusal: { reason: 'card_used' } };
    await recordDecision(tx, approvalId, decider, 'reject', 'pending', 'rejected');
    await setApprovalStatus(tx, approvalId, 'rejected', decider.now);
    return { ok: true, status: 'rejected', execution_triggered: false, signers: [] };
  });
}

/**
 * Compare-and-set status move (execution: approved → executing → executed | failed).
 * True when this caller made the move; false when the approval was not in `from`.
 */
export function moveApproval(
  store: Store,
  approvalId: string,
  from: readonly string[],
  to: ApprovalStatus,
  decider: Decider,
): Promise<boolean> {
  return store.withLock(approvalLock(approvalId), (tx) =>
    moveApprovalIn(tx, approvalId, from, to, decider),
  );
}

/**
 * moveApproval inside a transaction the caller opened with the approval's lock
 * (`approvalLock`), so that the move commits with the caller's other writes.
 */
export async function moveApprovalIn(
  tx: Tx,
  approvalId: string,
  from: readonly string[],
  to: ApprovalStatus,
  decider: Decider,
): Promise<boolean> {
  const current = await approvalStateOf(tx, approvalId);
  if (!current || !from.includes(current.status)) return false;
  await setApprovalStatus(tx, approvalId, to, decider.now);
  await recordDecision(tx, approvalId, decider, 'move', current.status, to);
  return true;
}
