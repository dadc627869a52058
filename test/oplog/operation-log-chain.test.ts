import { beforeAll, describe, expect, it } from 'vitest';
import {
  GENESIS_HASH,
  type OperationEntry,
  verifyOperationChain,
} from '../../src/features/oplog/operation-log.js';
import { backends, buildTestApp, type TestApp } from '../helpers/build-app.js';

function entry(index: number): OperationEntry {
  return {
    type: index % 2 === 0 ? 'AUTO_REPAIR_TRIGGERED' : 'EXECUTION_COMPLETED',
    incidentId: `inc-${index % 5}`,
    approvalId: `apr-${index}`,
    actor: 'auto-repair',
    actionDetail: `entry ${index}`,
    success: index % 3 !== 0,
    errorMessage: index % 3 === 0 ? 'failed' : null,
    context: { index, nested: { list: [index, 'x'] } },
  };
}

describe.each(backends())('operation-log hash chain on %s', (backend) => {
  let store: TestApp['app']['services']['store'];
  let oplog: TestApp['app']['services']['oplog'];
  beforeAll(async () => {
    const { app } = await buildTestApp({ backend });
    ({ store, oplog } = app.services);
  });
  const rows = () => store.db.selectFrom('operation_log').selectAll().orderBy('seq').execute();

  it('stays one intact chain under 50 concurrent appends', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => oplog.append(entry(i), Date.now())));
    const all = await rows();
    expect(all).toHaveLength(50);
    // One line: every entry links to the one before it, so no two share a predecessor.
    expect(all[0]?.prev_hash).toBe(GENESIS_HASH);
    expect(all.slice(1).map((row) => row.prev_hash)).toEqual(
      all.slice(0, -1).map((row) => row.hash),
    );
    expect(new Set(all.map((row) => row.prev_hash)).size).toBe(50);
    expect(await verifyOperationChain(store.db)).toEqual({
      intact: true,
      entries: 50,
      first_broken_id: null,
      reason: null,
    });
    // Paging through the chain gives the same verdict.
    expect((await verifyOperationChain(store.db, 7)).intact).toBe(true);
  });

  it('reports the altered row when one action_detail is changed in the database', async () => {
    const victim = (await rows())[20]!;
    await store.db
      .updateTable('operation_log')
      .set({ action_detail: 'nothing happened here' })
      .where('id', '=', victim.id)
      .execute();
    for (const pageSize of [1000, 7]) {
      expect(await verifyOperationChain(store.db, pageSize)).toEqual({
        intact: false,
        entries: 21,
        first_broken_id: victim.id,
        reason: 'entry content does not match its hash',
      });
    }
    await store.db
      .updateTable('operation_log')
      .set({ action_detail: victim.action_detail })
      .where('id', '=', victim.id)
      .execute();
    expect((await verifyOperationChain(store.db)).intact).toBe(true);
  });

  it('reports the row after a deleted one as a broken link', async () => {
    const all = await rows();
    await store.db.deleteFrom('operation_log').where('id', '=', all[30]!.id).execute();
    expect(await verifyOperationChain(store.db)).toMatchObject({
      intact: false,
      first_broken_id: all[31]!.id,
      reason: 'link to the previous entry does not match',
    });
  });
});
