import { ALERT_TYPES, CUSTOM_ALERT_TYPE } from '../incidents/alert-type-table.js';
import { incidentsByAlertType } from '../incidents/incident-counts.js';
import { matchPlaybook } from '../repair/playbooks.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput, requiredInput } from './compose.js';
import { DocumentReader } from './document-shape.js';
import type { CommittedDocument } from './readback-files.js';
import { readReceipts } from './receipt-log.js';

/**
 * spec, Readbacks: live, chatops-alert-monitoring-coverage-readback: "coverage of monitoring
 * alerts by database/log receipts and automation routes". The alert types are the service's
 * own (alert-type-table.ts, the configured rules, `custom`, and any type incidents carry);
 * routes come from the playbook catalog; receipts from the committed document and from the
 * live-receipt rows in the operation log.
 */
export const COVERAGE_READBACK = 'chatops-alert-monitoring-coverage-readback';
export const UNASSIGNED_BATCH = 'unassigned';

export interface CoveragePlan {
  batches: Array<{ batch_id: string; alert_types: string[] }>;
  receipts: Array<{ alert_type: string; kind: 'database' | 'log'; ref: string }>;
  sha256: string | null;
}

export function coveragePlan(committed: CommittedDocument | undefined): CoveragePlan {
  if (!committed) return { batches: [], receipts: [], sha256: null };
  const read = new DocumentReader(COVERAGE_READBACK);
  const doc = committed.document;
  return {
    batches: read.objects(doc, 'batches', true).map((batch, i) => ({
      batch_id: read.text(batch, 'batch_id', `batches[${i}].batch_id`),
      alert_types: read.texts(batch, 'alert_types', `batches[${i}].alert_types`),
    })),
    receipts: read.objects(doc, 'receipts').map((receipt, i) => {
      const kind = read.text(receipt, 'kind', `receipts[${i}].kind`);
      if (kind !== 'database' && kind !== 'log')
        read.fail(`receipts[${i}].kind must be database or log`);
      return {
        alert_type: read.text(receipt, 'alert_type', `receipts[${i}].alert_type`),
        kind: kind as 'database' | 'log',
        ref: read.text(receipt, 'ref', `receipts[${i}].ref`),
      };
    }),
    sha256: committed.sha256,
  };
}

export function batchOf(plan: CoveragePlan, alertType: string): string {
  return (
    plan.batches.find((batch) => batch.alert_types.includes(alertType))?.batch_id ??
    UNASSIGNED_BATCH
  );
}

/** Incidents per alert type: how often the service has really seen each. */
export async function incidentsByType(ctx: ReadbackContext) {
  const rows = await incidentsByAlertType(ctx.services.store.db);
  return new Map(rows.map(({ alert_type, ...seen }) => [alert_type, seen]));
}

function originOf(ctx: ReadbackContext, type: string): string {
  if ((ALERT_TYPES as readonly string[]).includes(type)) return 'built_in_table';
  if (ctx.alertTypeRules.some((rule) => rule.type === type)) return 'match_rule';
  return type === CUSTOM_ALERT_TYPE ? 'fallback' : 'observed';
}

export async function computeCoverage(ctx: ReadbackContext, plan: CoveragePlan) {
  const seen = await incidentsByType(ctx);
  const live = await readReceipts(ctx.services.store.db, 'ALERT_LIVE_RECEIPT');
  const types = [
    ...new Set([
      ...ALERT_TYPES,
      ...ctx.alertTypeRules.map((rule) => rule.type),
      CUSTOM_ALERT_TYPE,
      ...seen.keys(),
    ]),
  ];
  const rows = types.map((type) => {
    const match = matchPlaybook(ctx.playbooks, { alert_type: type });
    const receipts = {
      database: plan.receipts.filter((r) => r.alert_type === type && r.kind === 'database').length,
      log: plan.receipts.filter((r) => r.alert_type === type && r.kind === 'log').length,
      live: live.filter((r) => r.context.alert_type === type).length,
    };
    const route = !match
      ? 'manual'
      : match.playbook.risk_level === 'critical'
        ? 'owner_approval_break_glass'
        : 'auto_repair';
    return {
      alert_type: type,
      origin: originOf(ctx, type),
      batch_id: batchOf(plan, type),
      incidents_seen: seen.get(type)?.incidents ?? 0,
      automation_route: route,
      playbook: match
        ? {
            id: match.playbook.id,
            similarity_score: match.similarity_score,
            risk_level: match.playbook.risk_level,
          }
        : null,
      receipts,
      covered_by_playbook: match !== null,
      covered_by_receipts: receipts.database + receipts.log + receipts.live > 0,
    };
  });
  return { rows, live };
}

export async function coverageReadback(ctx: ReadbackContext) {
  const plan = coveragePlan(requiredInput(ctx, COVERAGE_READBACK));
  const { rows } = await computeCoverage(ctx, plan);
  const gaps = rows.filter((row) => !row.covered_by_playbook || !row.covered_by_receipts);
  return {
    schema_version: 'chatops_alert_monitoring_coverage_readback_v1',
    generated_at: new Date(ctx.now()).toISOString(),
    summary: {
      alert_types: rows.length,
      covered_by_playbook: rows.filter((row) => row.covered_by_playbook).length,
      covered_by_receipts: rows.filter((row) => row.covered_by_receipts).length,
      fully_covered: rows.length - gaps.length,
      gaps: gaps.length,
    },
    batches: [...plan.batches.map((b) => b.batch_id), UNASSIGNED_BATCH].map((batchId) => {
      const members = rows.filter((row) => row.batch_id === batchId);
      return {
        batch_id: batchId,
        alert_types: members.length,
        fully_covered: members.filter((row) => row.covered_by_playbook && row.covered_by_receipts)
          .length,
      };
    }),
    alert_types: rows,
    gap_alert_types: gaps.map((row) => row.alert_type),
    boundaries: { chat_message_sent: false, workflow_triggered: false },
  };
}

/** The live-receipt rows mapped onto the committed coverage batches (unassigned otherwise). */
export async function liveReceiptApplyReadback(ctx: ReadbackContext) {
  const plan = coveragePlan(optionalInput(ctx, COVERAGE_READBACK));
  const rows = await readReceipts(ctx.services.store.db, 'ALERT_LIVE_RECEIPT');
  const view = rows.map((row) => ({
    receipt_id: row.id,
    alert_type: String(row.context.alert_type ?? ''),
    batch_id: batchOf(plan, String(row.context.alert_type ?? '')),
    recorded_batch_id: row.context.batch_id ?? null,
    incidents_seen: row.context.incidents_seen ?? null,
    recorded_at: row.recorded_at,
  }));
  const batchIds = [...plan.batches.map((batch) => batch.batch_id), UNASSIGNED_BATCH];
  return {
    schema_version: 'chatops_alert_monitoring_live_receipt_apply_readback_v1',
    generated_at: new Date(ctx.now()).toISOString(),
    coverage_source: plan.sha256
      ? { status: 'present', sha256: plan.sha256 }
      : { status: 'missing' },
    summary: { receipt_rows: view.length, batches: batchIds.length },
    batches: batchIds.map((batchId) => {
      const planned = plan.batches.find((batch) => batch.batch_id === batchId)?.alert_types ?? [];
      const withReceipts = [
        ...new Set(view.filter((row) => row.batch_id === batchId).map((row) => row.alert_type)),
      ];
      return {
        batch_id: batchId,
        receipt_rows: view.filter((row) => row.batch_id === batchId).length,
        alert_types_with_receipts: withReceipts,
        alert_types_without_receipts: planned.filter((type) => !withReceipts.includes(type)),
      };
    }),
    rows: view,
  };
}
