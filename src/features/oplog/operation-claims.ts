import type { Store } from '../../ports/store.js';
import type { OperationType, TimedEntry } from './operation-entry.js';
import {
  appendAllInTx,
  claimsAndChainEnd,
  recordedValues,
  withOperationLogLock,
} from './operation-log.js';

/**
 * Entries written at most once per approval: the first of `entries` is of type `type` and is
 * the claim (AUTO_REPAIR_TRIGGERED: an approval is evaluated once). The others follow it in
 * the chain, in the same transaction.
 */
export interface ClaimedEntries {
  approvalId: string;
  type: OperationType;
  entries: readonly TimedEntry[];
}

/**
 * Appends each claim's entries unless an entry of its type about its approval exists, in one
 * transaction under the log's lock; says of each claim whether it was appended. Check and
 * append share that transaction, so no crash leaves one without the other and no two callers
 * both append. Claims arriving together (a storm's evaluations side by side) are written by
 * one call (operation-log-writer.ts): one lock, one read per type (the first type's with the
 * chain's end), one insert, rather than the lock held once per approval while every other
 * replica waits for it.
 */
export function appendClaims(store: Store, claims: readonly ClaimedEntries[]): Promise<boolean[]> {
  return withOperationLogLock(store, async (tx) => {
    const approvalsOf = (type: OperationType) => [
      ...new Set(claims.filter((each) => each.type === type).map((each) => each.approvalId)),
    ];
    // A batch holds at least one claim, so it has a first type.
    const [firstType, ...otherTypes] = [...new Set(claims.map((each) => each.type))] as [
      OperationType,
      ...OperationType[],
    ];
    const first = await claimsAndChainEnd(tx, firstType, approvalsOf(firstType));
    const taken = new Map([[firstType, first.claimed]]);
    for (const type of otherTypes) {
      taken.set(type, await recordedValues(tx, type, 'approval_id', approvalsOf(type)));
    }
    const appended: TimedEntry[] = [];
    const outcomes = claims.map((each) => {
      const approvals = taken.get(each.type)!;
      if (approvals.has(each.approvalId)) return false;
      approvals.add(each.approvalId);
      appended.push(...each.entries);
      return true;
    });
    await appendAllInTx(tx, appended, first.chainEnd);
    return outcomes;
  });
}
