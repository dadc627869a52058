import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import type { ClaimedEntries } from '../../src/features/oplog/operation-claims.js';
import type { OperationEntry, TimedEntry } from '../../src/features/oplog/operation-entry.js';
import {
  claimsAndChainEnd,
  GENESIS_HASH,
  verifyOperationChain,
  withOperationLogLock,
} from '../../src/features/oplog/operation-log.js';
import {
  createOperationLog,
  type OperationLog,
} from '../../src/features/oplog/operation-log-writer.js';
import type { Store } from '../../src/ports/store.js';
import { makeStore, postgresUrlWithFreshSchema, storeKinds } from '../helpers/backends.js';

function claimOf(approvalId: string, context: Record<string, unknown> = {}) {
  const entry = (type: OperationEntry['type']): TimedEntry => ({
    entry: {
      type,
      incidentId: `inc-${approvalId}`,
      approvalId,
      actor: 'auto-repair',
      actionDetail: `${type} for ${approvalId}`,
      success: true,
      errorMessage: null,
      context: { executor: 'dry-run', ...context },
    },
    now: Date.now(),
  });
  return {
    approvalId,
    type: 'AUTO_REPAIR_TRIGGERED' as const,
    entries: [entry('AUTO_REPAIR_TRIGGERED'), entry('EXECUTION_COMPLETED')],
  };
}

/** One operation log per store, as each replica builds its own. */
const logs = new Map<Store, OperationLog>();
function oplogOf(store: Store): OperationLog {
  let log = logs.get(store);
  if (!log) {
    log = createOperationLog({ store });
    logs.set(store, log);
  }
  return log;
}
const appendOncePerApproval = (store: Store, claim: ClaimedEntries) =>
  oplogOf(store).appendOncePerApproval(claim);
const appendOperation = (store: Store, entry: OperationEntry, now: number) =>
  oplogOf(store).append(entry, now);

const rowsOf = (store: Store) =>
  store.db.selectFrom('operation_log').selectAll().orderBy('seq').execute();

describe.each(storeKinds())('claims appended once per approval on %s', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** One store, or on PostgreSQL two stores on one schema: two replicas. */
  async function replicas(): Promise<Store[]> {
    if (kind === 'sqlite') {
      const one = await makeStore('sqlite');
      cleanups.push(one.cleanup);
      return [one.store];
    }
    const first = await makeStore('postgres');
    cleanups.push(first.cleanup);
    const { url } = postgresUrlWithFreshSchema();
    const schema = (
      await first.store.db
        .selectNoFrom((eb) => eb.fn<string>('current_schema', []).as('s'))
        .executeTakeFirstOrThrow()
    ).s;
    const parsed = new URL(url);
    parsed.searchParams.delete('schema');
    const second = await createPostgresStore({ url: parsed.toString(), schema });
    cleanups.push(() => second.close());
    return [first.store, second];
  }

  it('claims each approval once when claims for it arrive together, and keeps its entries side by side', async () => {
    const stores = await replicas();
    const approvals = Array.from({ length: 12 }, (_, i) => `apr-${i}`);
    // Four claims per approval, spread over the replicas, all at once.
    const claims = approvals.flatMap((id) =>
      [0, 1, 2, 3].map((n) => ({ id, store: stores[n % stores.length]! })),
    );
    const outcomes = await Promise.all(
      claims.map(({ id, store }) => appendOncePerApproval(store, claimOf(id))),
    );
    const won = new Map<string, number>();
    claims.forEach(({ id }, index) => {
      if (outcomes[index]) won.set(id, (won.get(id) ?? 0) + 1);
    });
    expect([...won.values()]).toEqual(approvals.map(() => 1));
    const rows = await rowsOf(stores[0]!);
    expect(rows).toHaveLength(approvals.length * 2);
    for (const id of approvals) {
      const mine = rows.filter((row) => row.approval_id === id);
      expect(mine.map((row) => row.type)).toEqual(['AUTO_REPAIR_TRIGGERED', 'EXECUTION_COMPLETED']);
      // Written together, in one insert: nothing of another approval between them.
      expect(rows.indexOf(mine[1]!) - rows.indexOf(mine[0]!)).toBe(1);
    }
    expect(await verifyOperationChain(stores[0]!.db)).toMatchObject({ intact: true, entries: 24 });
    // A later claim of an approval already claimed appends nothing.
    expect(await appendOncePerApproval(stores[0]!, claimOf('apr-3'))).toBe(false);
    expect(await rowsOf(stores[0]!)).toHaveLength(24);
  });

  it('reads the claims and the chain end together, past 500 approvals too', async () => {
    const [store] = await replicas();
    const ids = Array.from({ length: 501 }, (_, i) => `many-${i}`);
    const read = () =>
      withOperationLogLock(store!, (tx) => claimsAndChainEnd(tx, 'AUTO_REPAIR_TRIGGERED', ids));
    // An empty log: the genesis hash, and nothing claimed.
    expect(await read()).toEqual({ claimed: new Set(), chainEnd: GENESIS_HASH });
    // One claim in the first 500 and one past them, then an entry of another type last.
    await appendOncePerApproval(store!, claimOf('many-7'));
    await appendOncePerApproval(store!, claimOf('many-500'));
    await appendOperation(store!, claimOf('other').entries[1]!.entry, Date.now());
    const rows = await rowsOf(store!);
    expect(await read()).toEqual({
      claimed: new Set(['many-7', 'many-500']),
      chainEnd: rows[rows.length - 1]!.hash,
    });
  });

  it('claims after entries of other types, in a batch mixing claimed and new approvals', async () => {
    const [store] = await replicas();
    await appendOperation(store!, claimOf('earlier').entries[1]!.entry, Date.now());
    expect(await appendOncePerApproval(store!, claimOf('mixed-1'))).toBe(true);
    const outcomes = await Promise.all(
      ['mixed-1', 'mixed-2', 'mixed-1', 'mixed-3'].map((id) =>
        appendOncePerApproval(store!, claimOf(id)),
      ),
    );
    expect(outcomes).toEqual([false, true, false, true]);
    const rows = await rowsOf(store!);
    expect(rows.map((row) => row.approval_id)).toEqual([
      'earlier',
      'mixed-1',
      'mixed-1',
      'mixed-2',
      'mixed-2',
      'mixed-3',
      'mixed-3',
    ]);
    expect(await verifyOperationChain(store!.db)).toMatchObject({ intact: true, entries: 7 });
  });

  it('claims of two types in one batch: each type read on its own, one chain', async () => {
    const [store] = await replicas();
    const chatClaim = (approvalId: string) => {
      const [, completed] = claimOf(approvalId).entries;
      return { approvalId, type: 'EXECUTION_COMPLETED' as const, entries: [completed!] };
    };
    expect(await appendOncePerApproval(store!, chatClaim('two-types-1'))).toBe(true);
    const outcomes = await Promise.all([
      appendOncePerApproval(store!, claimOf('two-types-1')),
      appendOncePerApproval(store!, chatClaim('two-types-1')),
      appendOncePerApproval(store!, chatClaim('two-types-2')),
    ]);
    // AUTO_REPAIR_TRIGGERED of -1 is new; its EXECUTION_COMPLETED was claimed before.
    expect(outcomes).toEqual([true, false, true]);
    const rows = await rowsOf(store!);
    expect(rows.map((row) => [row.approval_id, row.type])).toEqual([
      ['two-types-1', 'EXECUTION_COMPLETED'],
      ['two-types-1', 'AUTO_REPAIR_TRIGGERED'],
      ['two-types-1', 'EXECUTION_COMPLETED'],
      ['two-types-2', 'EXECUTION_COMPLETED'],
    ]);
    expect(await verifyOperationChain(store!.db)).toMatchObject({ intact: true, entries: 4 });
  });

  it('fails only the claim whose entry cannot be written, not the ones it arrived with', async () => {
    const [store] = await replicas();
    const outcomes = await Promise.allSettled([
      appendOncePerApproval(store!, claimOf('good-1')),
      // A BigInt cannot be written as JSON: this claim's entries fail.
      appendOncePerApproval(store!, claimOf('bad', { size: 1n })),
      appendOncePerApproval(store!, claimOf('good-2')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const rows = await rowsOf(store!);
    expect(rows.map((row) => row.approval_id)).toEqual(['good-1', 'good-1', 'good-2', 'good-2']);
    expect((await verifyOperationChain(store!.db)).intact).toBe(true);
  });
});
