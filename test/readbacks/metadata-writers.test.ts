import { beforeAll, describe, expect, it } from 'vitest';
import { backends, type TestApp, TestClock } from '../helpers/build-app.js';
import { AGENTS, readbackApp, readbackDir, writeDoc } from './readback-helpers.js';

describe.each(backends())('POST readbacks on %s', (backend) => {
  const clock = new TestClock();
  const dir = readbackDir();
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await readbackApp({ dir, backend, clock }));
  });
  const post = (name: string, payload?: unknown) =>
    app.inject({
      method: 'POST',
      url: `${AGENTS}/${name}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const operationLog = async () =>
    (await app.inject('/api/v1/operation-log?limit=200')).json().items as Array<
      Record<string, unknown>
    >;

  describe('the metadata-only writers', () => {
    it('dispatch writes one receipt per ready item, once, without the payload', async () => {
      writeDoc(dir, 'agent-log-controlled-writeback-executor-readback', {
        writeback_items: [
          {
            item_id: 'wb-1',
            target_ref: 'learning/crash_loop',
            status: 'ready_for_dispatch',
            payload: 'RAW-PAYLOAD-SHOULD-NOT-BE-STORED',
          },
          { item_id: 'wb-2', target_ref: 'reports/latency', status: 'ready' },
          { item_id: 'wb-3', target_ref: 'learning/oom', status: 'hold' },
        ],
      });
      const first = (await post('agent-log-controlled-writeback-dispatch')).json();
      expect(first.written.map((r: { context: { item_id: string } }) => r.context.item_id)).toEqual(
        ['wb-1', 'wb-2'],
      );
      const second = (await post('agent-log-controlled-writeback-dispatch')).json();
      expect(second.written).toEqual([]);
      expect(second.already_recorded).toHaveLength(2);
      const rows = (await operationLog()).filter(
        (row) => row.type === 'WRITEBACK_DISPATCH_RECEIPT',
      );
      expect(rows).toHaveLength(2);
      expect(JSON.stringify(rows)).not.toContain('RAW-PAYLOAD');
      expect(rows[0]).toMatchObject({
        actor: 'readback-writer',
        success: true,
        context: {
          metadata_only: true,
          source_readback: 'agent-log-controlled-writeback-executor-readback',
        },
      });
    });

    it('consumer apply writes context receipts for bound, ready dispatches, once', async () => {
      writeDoc(dir, 'agent-log-controlled-writeback-consumer-readback', {
        consumer_bindings: [
          {
            consumer_id: 'learning-store',
            target_ref_prefix: 'learning/',
            context_fields: ['alert_type'],
          },
        ],
      });
      const before = (
        await app.inject(`${AGENTS}/agent-log-controlled-writeback-consumer-readback`)
      ).json();
      expect(before.summary).toEqual({
        dispatch_receipts: 2,
        ready: 1,
        consumed: 0,
        unbound: 1,
        bindings: 1,
      });
      const applied = (await post('agent-log-controlled-writeback-consumer-apply')).json();
      expect(applied.written).toHaveLength(1);
      expect((await post('agent-log-controlled-writeback-consumer-apply')).json().written).toEqual(
        [],
      );
      const after = (
        await app.inject(`${AGENTS}/agent-log-controlled-writeback-consumer-readback`)
      ).json();
      expect(after.summary).toMatchObject({ ready: 0, consumed: 1, unbound: 1 });
      expect(after.receipts.find((r: { item_id: string }) => r.item_id === 'wb-1')).toMatchObject({
        consumer_id: 'learning-store',
        status: 'consumed',
      });
    });

    it('live-receipt apply records observed alert types per batch, once, and the readbacks map them', async () => {
      writeDoc(dir, 'chatops-alert-monitoring-coverage-readback', {
        batches: [{ batch_id: 'workloads', alert_types: ['crash_loop', 'oom_killed'] }],
        receipts: [{ alert_type: 'oom_killed', kind: 'log', ref: 'ticket:OPS-1' }],
      });
      for (const [name, workload] of [
        ['KubePodCrashLooping', 'api'],
        ['HighLatency', 'web'],
        ['KubePodCrashLooping', 'worker'],
      ]) {
        const alert = await app.inject({
          method: 'POST',
          url: '/api/v1/webhooks/alerts',
          payload: {
            alert_name: name,
            severity: 'warning',
            namespace: 'prod',
            target_resource: workload,
          },
        });
        expect(alert.statusCode).toBe(200);
      }
      const first = (await post('chatops-alert-monitoring-live-receipt-apply')).json();
      expect(
        first.written.map(
          (r: { context: { alert_type: string; batch_id: string; incidents_seen: number } }) => [
            r.context.alert_type,
            r.context.batch_id,
            r.context.incidents_seen,
          ],
        ),
      ).toEqual([
        ['crash_loop', 'workloads', 2],
        ['latency', 'unassigned', 1],
      ]);
      expect(first.chat_message_sent).toBe(false);
      expect((await post('chatops-alert-monitoring-live-receipt-apply')).json().written).toEqual(
        [],
      );
      expect(
        (await operationLog()).filter((row) => row.type === 'ALERT_LIVE_RECEIPT'),
      ).toHaveLength(2);
      expect((await operationLog()).filter((row) => row.type === 'CHAT_SENT')).toHaveLength(0);

      const mapped = (
        await app.inject(`${AGENTS}/chatops-alert-monitoring-live-receipt-apply-readback`)
      ).json();
      expect(mapped.batches).toEqual([
        {
          batch_id: 'workloads',
          receipt_rows: 1,
          alert_types_with_receipts: ['crash_loop'],
          alert_types_without_receipts: ['oom_killed'],
        },
        {
          batch_id: 'unassigned',
          receipt_rows: 1,
          alert_types_with_receipts: ['latency'],
          alert_types_without_receipts: [],
        },
      ]);

      const coverage = (
        await app.inject(`${AGENTS}/chatops-alert-monitoring-coverage-readback`)
      ).json();
      const row = (type: string) =>
        coverage.alert_types.find((r: { alert_type: string }) => r.alert_type === type);
      expect(row('crash_loop')).toMatchObject({
        batch_id: 'workloads',
        incidents_seen: 2,
        automation_route: 'auto_repair',
        playbook: { id: 'restart-crash-looping-deployment' },
        receipts: { database: 0, log: 0, live: 1 },
        covered_by_receipts: true,
      });
      expect(row('oom_killed')).toMatchObject({
        receipts: { log: 1, live: 0 },
        covered_by_playbook: true,
        covered_by_receipts: true,
      });
      expect(row('heartbeat')).toMatchObject({
        automation_route: 'manual',
        playbook: null,
        covered_by_playbook: false,
      });
      expect(row('custom')).toMatchObject({ origin: 'fallback' });
      expect(coverage.summary.alert_types).toBe(coverage.alert_types.length);
      expect(coverage.gap_alert_types).toContain('heartbeat');
    });

    it('the operation log chain still holds after every writer', async () => {
      expect((await app.inject('/api/v1/operation-log/verify')).json()).toMatchObject({
        intact: true,
      });
    });

    it('learning verifier resolves refs against readbacks, the operation log and playbooks', async () => {
      const [entry] = (await operationLog()).filter((row) => row.type === 'ALERT_LIVE_RECEIPT');
      writeDoc(dir, 'chatops-alert-learning-context-post-apply-verifier', {
        learning_receipts: [
          {
            receipt_id: 'lr-1',
            refs: {
              selector_ref: 'readback:chatops-alert-monitoring-coverage-readback',
              diff_ref: `oplog:${entry!.id}`,
              check_mode_ref: 'playbook:restart-crash-looping-deployment',
              rollback_ref: 'readback:agent-autonomous-runtime-control',
              verifier_ref: 'readback:agent-log-controlled-writeback-executor-readback',
            },
          },
          {
            receipt_id: 'lr-2',
            refs: {
              selector_ref: 'oplog:no-such-entry',
              diff_ref: 'https://tracker.example.com/1',
              check_mode_ref: 'playbook:x',
              rollback_ref: 'readback:nope',
              verifier_ref: 'playbook:restart-crash-looping-deployment',
            },
          },
          { receipt_id: 'lr-3', refs: { selector_ref: 'readback:agent-report-status-board' } },
        ],
      });
      const body = (
        await app.inject(`${AGENTS}/chatops-alert-learning-context-post-apply-verifier`)
      ).json();
      expect(body.receipts.map((r: { verdict: string }) => r.verdict)).toEqual([
        'verified',
        'unresolved',
        'incomplete',
      ]);
      expect(body.receipts[1].refs).toEqual({
        selector_ref: 'unresolved',
        diff_ref: 'external_unverified',
        check_mode_ref: 'unresolved',
        rollback_ref: 'unresolved',
        verifier_ref: 'resolved',
      });
      expect(body.status).toBe('attention_required');
    });
  });
});
