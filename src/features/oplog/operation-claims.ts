import type { Store } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
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

type Claim = (claim: ClaimedEntries) => Promise<boolean>;
const claimers = new WeakMap<Store, Claim>();

/**
 * Appends `claim.entries` unless an entry of `claim.type` about the approval exists; true when
 * appended. Check and append share one transaction under the log's lock, so no crash leaves
 * one without the other and no two callers both append. Claims arriving together (a storm's
 * evaluations side by side) share that transaction: one lock, one read per type (the first
 * type's with the chain's end), one insert, rather than the lock held once per approval while
 * every other replica waits for it.
 */
export function appendOncePerApproval(store: Store, claim: ClaimedEntries): Promise<boolean> {
  let append = claimers.get(store);
  if (!append) {
    const batch = groupCommit<ClaimedEntries, boolean>((claims) =>
      withOperationLogLock(store, async (tx) => {
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
      }),
    );
    append = (item) => batch.add(item);
    claimers.set(store, append);
  }
  return append(claim);
}
