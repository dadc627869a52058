import { matchPlaybook } from '../repair/playbooks.js';
import { batchOf, COVERAGE_READBACK, coveragePlan, incidentsByType } from './alert-coverage.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { appendReceiptsOnce } from './receipt-log.js';

/**
 * spec, Readbacks: POST chatops-alert-monitoring-live-receipt-apply: "writes metadata-only
 * live-receipt rows; sends no chat message". One row per alert type the service has really
 * received (its incidents), per coverage batch and committed coverage version: counts and
 * times only. A second run with the same coverage version writes nothing new.
 */
export async function applyLiveReceipts(ctx: ReadbackContext) {
  const plan = coveragePlan(optionalInput(ctx, COVERAGE_READBACK));
  const seen = await incidentsByType(ctx);
  const revision = plan.sha256?.slice(0, 16) ?? 'no-coverage-document';
  const receipts = [...seen.entries()]
    .filter(([, stats]) => stats.incidents > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([alertType, stats]) => {
      const batchId = batchOf(plan, alertType);
      const playbook = matchPlaybook(ctx.playbooks, { alert_type: alertType })?.playbook.id ?? null;
      return {
        key: `live-receipt:${alertType}:${batchId}:${revision}`,
        context: {
          alert_type: alertType,
          batch_id: batchId,
          incidents_seen: stats.incidents,
          last_seen: new Date(stats.last_seen).toISOString(),
          playbook_id: playbook,
          coverage_sha256: plan.sha256,
        },
      };
    });
  const outcome = await appendReceiptsOnce(
    ctx.services.store,
    'ALERT_LIVE_RECEIPT',
    receipts,
    ctx.now(),
  );
  return {
    status: 'applied',
    coverage_source: plan.sha256 ? 'present' : 'missing',
    alert_types_seen: receipts.length,
    written: outcome.written,
    already_recorded: outcome.already_recorded,
    chat_message_sent: false,
  };
}
