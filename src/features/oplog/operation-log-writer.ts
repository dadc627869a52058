import type { Store } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';
import { appendClaims, type ClaimedEntries } from './operation-claims.js';
import type { OperationEntry, TimedEntry } from './operation-entry.js';
import { appendAllInTx, withOperationLogLock } from './operation-log.js';

/**
 * The operation log's writes, built once per service: appends are serialized so the chain
 * has one line, and entries arriving together share one transaction (one lock, one commit).
 * Its batches belong to this object, so a second service in the process (a test's, a bench
 * replica's) batches apart over its own store.
 */
export interface OperationLog {
  /** Appends one entry; returns its id. */
  append(entry: OperationEntry, now: number): Promise<string>;
  /**
   * Appends `claim.entries` unless an entry of `claim.type` about the approval exists; true
   * when appended (appendClaims says how claims arriving together share one transaction).
   */
  appendOncePerApproval(claim: ClaimedEntries): Promise<boolean>;
  /** Settles once every append asked for so far is written. */
  close(): Promise<void>;
}

export function createOperationLog({ store }: { store: Store }): OperationLog {
  const appends = groupCommit<TimedEntry, string>((items) =>
    withOperationLogLock(store, (tx) => appendAllInTx(tx, items)),
  );
  const claims = groupCommit<ClaimedEntries, boolean>((batch) => appendClaims(store, batch));
  return {
    append: (entry, now) => appends.add({ entry, now }),
    appendOncePerApproval: (claim) => claims.add(claim),
    async close() {
      await Promise.all([appends.settled(), claims.settled()]);
    },
  };
}
