import { beforeAll, describe, expect, it } from 'vitest';
import type { OperationType } from '../../src/features/oplog/operation-log.js';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';

const URL = '/api/v1/operation-log';

describe.each(backends())('operation-log routes on %s', (backend) => {
  const clock = new TestClock();
  let app: TestApp['app'];
  let store: TestApp['app']['services']['store'];
  let oplog: TestApp['app']['services']['oplog'];
  const seeded: Array<{ id: string; type: OperationType; approval: string; incident: string }> = [];
  let newestFirst: typeof seeded;
  const types: OperationType[] = [
    'AUTO_REPAIR_TRIGGERED',
    'EXECUTION_COMPLETED',
    'CHAT_RESULT_SENT',
  ];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, clock }));
    ({ store, oplog } = app.services);
    for (let i = 0; i < 9; i += 1) {
      const type = types[i % 3]!;
      const approval = `apr-${i % 3}`;
      const incident = `inc-${i % 2}`;
      const id = await oplog.append(
        {
          type,
          incidentId: incident,
          approvalId: approval,
          actor: 'auto-repair',
          actionDetail: `entry ${i}`,
          success: i !== 4,
          errorMessage: i === 4 ? 'boom' : null,
          context: { i },
        },
        clock.now() + i,
      );
      seeded.push({ id, type, approval, incident });
    }
    newestFirst = [...seeded].reverse();
  });

  it('lists entries newest first, page by page', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=4&cursor=${cursor}` : '?limit=4';
      const response = await app.inject(`${URL}${query}`);
      expect(response.statusCode).toBe(200);
      const body = response.json();
      ids.push(...body.items.map((item: { id: string }) => item.id));
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(ids).toEqual(newestFirst.map((entry) => entry.id));
  });

  it('shows each entry with the spec fields', async () => {
    const body = (await app.inject(`${URL}?limit=1&type=CHAT_RESULT_SENT`)).json();
    expect(body.items[0]).toEqual({
      id: seeded[8]!.id,
      type: 'CHAT_RESULT_SENT',
      incident_id: 'inc-0',
      approval_id: 'apr-2',
      actor: 'auto-repair',
      action_detail: 'entry 8',
      success: true,
      error_message: null,
      context: { i: 8 },
      created_at: new Date(clock.now() + 8).toISOString(),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      prev_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it.each([
    ['approval_id=apr-1', (e: (typeof seeded)[number]) => e.approval === 'apr-1'],
    ['incident_id=inc-1', (e: (typeof seeded)[number]) => e.incident === 'inc-1'],
    ['type=EXECUTION_COMPLETED', (e: (typeof seeded)[number]) => e.type === 'EXECUTION_COMPLETED'],
    [
      'approval_id=apr-0&incident_id=inc-0',
      (e: (typeof seeded)[number]) => e.approval === 'apr-0' && e.incident === 'inc-0',
    ],
    ['approval_id=nobody', () => false],
  ])('filters by %s', async (query, keep) => {
    const body = (await app.inject(`${URL}?${query}`)).json();
    expect(body.items.map((item: { id: string }) => item.id)).toEqual(
      newestFirst.filter(keep).map((e) => e.id),
    );
    expect(body.next_cursor).toBeNull();
  });

  it.each([
    ['type=UNKNOWN', 'type'],
    ['limit=0', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
  ])('refuses %s with 422', async (query, field) => {
    const response = await app.inject(`${URL}?${query}`);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toContain(field);
  });

  it('verifies the chain, and names the altered entry', async () => {
    expect((await app.inject(`${URL}/verify`)).json()).toEqual({
      intact: true,
      entries: 9,
      first_broken_id: null,
      reason: null,
    });
    await store.db
      .updateTable('operation_log')
      .set({ success: 1 })
      .where('id', '=', seeded[4]!.id)
      .execute();
    expect((await app.inject(`${URL}/verify`)).json()).toEqual({
      intact: false,
      entries: 5,
      first_broken_id: seeded[4]!.id,
      reason: 'entry content does not match its hash',
    });
  });
});

describe('operation-log routes with CONSOLE_TOKEN', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { CONSOLE_TOKEN: 'sekret' } }));
  });

  it.each([URL, `${URL}/verify`])('%s needs the bearer token', async (url) => {
    expect((await app.inject(url)).statusCode).toBe(401);
    const ok = await app.inject({ url, headers: { authorization: 'Bearer sekret' } });
    expect(ok.statusCode).toBe(200);
  });
});
