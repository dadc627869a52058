import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader } from './document-shape.js';
import { appendReceiptsOnce, readReceipts, type StoredReceipt, shortHash } from './receipt-log.js';

/**
 * The controlled log writeback lane (spec, Readbacks: POST agent-log-controlled-writeback-
 * dispatch and -consumer-apply; live agent-log-controlled-writeback-consumer-readback).
 * Receipts carry ids, target refs and hashes; an item's content never reaches the log.
 */
export const EXECUTOR_READBACK = 'agent-log-controlled-writeback-executor-readback';
export const CONSUMER_READBACK = 'agent-log-controlled-writeback-consumer-readback';
const DISPATCHABLE: ReadonlySet<string> = new Set(['ready', 'ready_for_dispatch']);
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

interface WritebackItem {
  item_id: string;
  target_ref: string;
  status: string;
  item_sha256: string;
}

/** The executor readback's `writeback_items`: item_id, target_ref, status (others ignored). */
export function writebackItems(document: Record<string, unknown>): WritebackItem[] {
  const read = new DocumentReader(EXECUTOR_READBACK);
  return read.objects(document, 'writeback_items', true).map((item, index) => {
    const itemId = read.text(item, 'item_id', `writeback_items[${index}].item_id`);
    if (!ID.test(itemId)) read.fail(`writeback_items[${index}].item_id is not an id`);
    return {
      item_id: itemId,
      target_ref: read.text(item, 'target_ref', `writeback_items[${index}].target_ref`),
      status: read.text(item, 'status', `writeback_items[${index}].status`),
      item_sha256: shortHash(item),
    };
  });
}

export async function dispatchWritebacks(ctx: ReadbackContext) {
  const source = optionalInput(ctx, EXECUTOR_READBACK);
  if (!source) return { status: 'no_source', source_readback: EXECUTOR_READBACK, written: [] };
  const ready = writebackItems(source.document).filter((item) => DISPATCHABLE.has(item.status));
  const outcome = await appendReceiptsOnce(
    ctx.services.store,
    'WRITEBACK_DISPATCH_RECEIPT',
    ready.map((item) => ({
      // A changed item is a new dispatch; the same item dispatched again is not.
      key: `dispatch:${item.item_id}:${item.item_sha256}`,
      context: {
        item_id: item.item_id,
        target_ref: item.target_ref,
        item_sha256: item.item_sha256,
        source_readback: EXECUTOR_READBACK,
        source_sha256: source.sha256,
      },
    })),
    ctx.now(),
  );
  return {
    status: 'dispatched',
    source_readback: EXECUTOR_READBACK,
    ready_items: ready.length,
    written: outcome.written,
    already_recorded: outcome.already_recorded,
    workflow_triggered: false,
  };
}

interface Binding {
  consumer_id: string;
  target_ref_prefix: string;
  context_fields: string[];
}

function bindingsOf(ctx: ReadbackContext): Binding[] {
  const committed = optionalInput(ctx, CONSUMER_READBACK);
  if (!committed) return [];
  const read = new DocumentReader(CONSUMER_READBACK);
  return read.objects(committed.document, 'consumer_bindings').map((binding, index) => ({
    consumer_id: read.text(binding, 'consumer_id', `consumer_bindings[${index}].consumer_id`),
    target_ref_prefix: read.text(
      binding,
      'target_ref_prefix',
      `consumer_bindings[${index}].target_ref_prefix`,
    ),
    context_fields: read.texts(
      binding,
      'context_fields',
      `consumer_bindings[${index}].context_fields`,
    ),
  }));
}

/** Projects each dispatch receipt onto the first consumer binding whose prefix its target has. */
export function projectConsumers(
  dispatches: readonly StoredReceipt[],
  consumed: readonly StoredReceipt[],
  bindings: readonly Binding[],
) {
  const done = new Set(
    consumed.map(
      (receipt) => `${receipt.context.dispatch_receipt_id}|${receipt.context.consumer_id}`,
    ),
  );
  return dispatches.map((dispatch) => {
    const target = String(dispatch.context.target_ref ?? '');
    const binding = bindings.find((candidate) => target.startsWith(candidate.target_ref_prefix));
    const status = !binding
      ? 'unbound'
      : done.has(`${dispatch.id}|${binding.consumer_id}`)
        ? 'consumed'
        : 'ready';
    return {
      dispatch_receipt_id: dispatch.id,
      dispatch_receipt_key: dispatch.key,
      item_id: dispatch.context.item_id ?? null,
      target_ref: target,
      dispatched_at: dispatch.recorded_at,
      consumer_id: binding?.consumer_id ?? null,
      context_fields: binding?.context_fields ?? [],
      status,
    };
  });
}

export async function consumerReadback(ctx: ReadbackContext) {
  const bindings = bindingsOf(ctx);
  const db = ctx.services.store.db;
  const projections = projectConsumers(
    await readReceipts(db, 'WRITEBACK_DISPATCH_RECEIPT'),
    await readReceipts(db, 'WRITEBACK_CONSUMER_RECEIPT'),
    bindings,
  );
  const count = (status: string) => projections.filter((item) => item.status === status).length;
  return {
    schema_version: 'agent_log_controlled_writeback_consumer_readback_v1',
    generated_at: new Date(ctx.now()).toISOString(),
    summary: {
      dispatch_receipts: projections.length,
      ready: count('ready'),
      consumed: count('consumed'),
      unbound: count('unbound'),
      bindings: bindings.length,
    },
    consumer_bindings: bindings,
    receipts: projections,
    boundaries: { metadata_only: true, raw_payload_stored: false, workflow_triggered: false },
  };
}

export async function applyConsumers(ctx: ReadbackContext) {
  const readback = await consumerReadback(ctx);
  const ready = readback.receipts.filter((item) => item.status === 'ready');
  const outcome = await appendReceiptsOnce(
    ctx.services.store,
    'WRITEBACK_CONSUMER_RECEIPT',
    ready.map((item) => ({
      key: `consume:${item.dispatch_receipt_id}:${item.consumer_id}`,
      context: {
        dispatch_receipt_id: item.dispatch_receipt_id,
        dispatch_receipt_key: item.dispatch_receipt_key,
        consumer_id: item.consumer_id,
        target_ref: item.target_ref,
        context_fields: item.context_fields,
      },
    })),
    ctx.now(),
  );
  return {
    status: 'applied',
    ready_dispatch_receipts: ready.length,
    written: outcome.written,
    already_recorded: outcome.already_recorded,
    workflow_triggered: false,
  };
}
