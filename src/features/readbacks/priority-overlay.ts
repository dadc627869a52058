import type { ReadbackContext, SourceOutcome } from './catalog/readback-types.js';
import { requiredInput, SourceTimeout } from './compose.js';
import { DocumentReader, isRecord } from './document-shape.js';

/**
 * spec, Priority work order overlay fields. The committed work order plus the live overlay:
 * `ready` merges the live readbacks named in the spec concurrently under a deadline;
 * `delegated_to_dedicated_readbacks` points readers to the four runtime truth sources
 * instead; `degraded_timeout` when the deadline passes first. The selecting condition is
 * "not shown": here PRIORITY_OVERLAY_MODE chooses delegated or ready, and ready degrades when
 * any source misses PRIORITY_OVERLAY_TIMEOUT_MS (default 3 s, README, Configuration).
 *
 * Every field of the spec's table is present in every mode; a field the table says is "set
 * when" another mode is null.
 */
export const PRIORITY_WORK_ORDER = 'platform-priority-work-order-readback';

/** spec: "the registry and public-API recovery preflights, the log writeback executor, ...". */
export const OVERLAY_SOURCES = [
  'imgstore-registry-controlled-recovery-preflight',
  'marketdata-public-api-controlled-recovery-preflight',
  'agent-log-controlled-writeback-executor-readback',
  'agent-log-post-write-verifier-dry-run',
  'agent-log-controlled-writeback-consumer-readback',
  'chatops-alert-learning-context-post-apply-verifier',
  'controlled-delivery-lane-metrics',
  'agent-autonomous-runtime-control',
  'asset-capability-matrix',
] as const;

/** spec: "list of four readback paths"; given as paths a client can call. */
export const RUNTIME_TRUTH_SOURCES = [
  'agent-autonomous-runtime-control',
  'agent-log-controlled-writeback-consumer-readback',
  'chatops-alert-learning-context-post-apply-verifier',
  'chatops-alert-monitoring-coverage-readback',
].map((name) => `/api/v1/agents/${name}`);

export const OVERLAY_TIMEOUT_BLOCKER = 'priority_work_order_live_overlay_timeout';

export type OverlayOutcome =
  | { mode: 'ready'; timeoutMs: number; sources: SourceOutcome[] }
  | { mode: 'delegated' }
  | { mode: 'degraded'; timeoutMs: number; errorType: string; timedOut: string[] };

function section(document: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = document[key];
  if (value === undefined) return {};
  if (!isRecord(value))
    return new DocumentReader(PRIORITY_WORK_ORDER).fail(`"${key}" must be an object`);
  return value;
}

function sourceSummary(source: SourceOutcome) {
  const doc = source.document;
  return {
    readback: source.readback,
    status: source.status,
    source_status: typeof doc?.status === 'string' ? doc.status : null,
    summary: isRecord(doc?.summary) ? doc.summary : null,
  };
}

/** The sections the overlay writes into must be objects and the blockers a list (else 500). */
export function checkWorkOrder(workOrder: Record<string, unknown>): unknown[] {
  for (const key of ['summary', 'rollups', 'mainline_execution_state']) section(workOrder, key);
  const blockers = workOrder.active_blockers ?? [];
  if (!Array.isArray(blockers))
    new DocumentReader(PRIORITY_WORK_ORDER).fail('"active_blockers" must be a list');
  return blockers as unknown[];
}

/** Pure: the committed work order with the overlay fields of one outcome. */
export function applyOverlay(workOrder: Record<string, unknown>, outcome: OverlayOutcome) {
  const blockers = checkWorkOrder(workOrder).filter((b) => b !== OVERLAY_TIMEOUT_BLOCKER);
  const degraded = outcome.mode === 'degraded';
  const delegated = outcome.mode === 'delegated';
  const timeoutSeconds = outcome.mode === 'delegated' ? null : outcome.timeoutMs / 1000;
  return {
    ...workOrder,
    summary: {
      ...section(workOrder, 'summary'),
      priority_work_order_live_overlay_status: delegated
        ? 'delegated_to_dedicated_readbacks'
        : degraded
          ? 'degraded_timeout'
          : 'ready',
      priority_work_order_live_overlay_included: outcome.mode === 'ready',
      priority_work_order_live_overlay_timeout_seconds: timeoutSeconds,
      priority_work_order_live_overlay_error_type: degraded ? outcome.errorType : null,
      priority_work_order_runtime_truth_sources: delegated ? RUNTIME_TRUTH_SOURCES : null,
    },
    rollups: {
      ...section(workOrder, 'rollups'),
      priority_work_order_live_overlay_degraded: degraded,
    },
    mainline_execution_state: {
      ...section(workOrder, 'mainline_execution_state'),
      priority_work_order_live_overlay_degraded: degraded,
      priority_work_order_runtime_truth_source: delegated ? 'dedicated_runtime_readbacks' : null,
      priority_work_order_live_overlay_next_action: degraded
        ? `The live overlay missed its ${timeoutSeconds} s deadline (${outcome.timedOut.join(', ')}); read those readbacks directly or retry. The committed work order is shown without live data.`
        : null,
    },
    active_blockers: degraded ? [...blockers, OVERLAY_TIMEOUT_BLOCKER] : blockers,
    priority_work_order_live_overlay:
      outcome.mode === 'ready'
        ? { sources: outcome.sources.map(sourceSummary) }
        : outcome.mode === 'degraded'
          ? { sources_timed_out: outcome.timedOut }
          : { delegated_to: RUNTIME_TRUTH_SOURCES },
  };
}

/** Every source at once; one deadline for all, after which the rest are abandoned and aborted. */
export async function mergeLiveSources(
  ctx: ReadbackContext,
  names: readonly string[],
  timeoutMs: number,
): Promise<OverlayOutcome> {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, ctx.signal]);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const results = await Promise.all(
      names.map((name) =>
        Promise.race([
          ctx.readback(name, signal).catch((error: unknown) => {
            if (error instanceof SourceTimeout) return 'timeout' as const;
            return { readback: name, status: 'error' } as SourceOutcome;
          }),
          deadline,
        ]),
      ),
    );
    const timedOut = names.filter((_, i) => results[i] === 'timeout');
    if (timedOut.length > 0)
      return { mode: 'degraded', timeoutMs, errorType: 'TimeoutError', timedOut };
    return { mode: 'ready', timeoutMs, sources: results as SourceOutcome[] };
  } finally {
    clearTimeout(timer);
    controller.abort(new SourceTimeout(timeoutMs));
  }
}

export async function priorityWorkOrder(ctx: ReadbackContext) {
  const committed = requiredInput(ctx, PRIORITY_WORK_ORDER);
  checkWorkOrder(committed.document);
  const { overlayMode, overlayTimeoutMs } = ctx.settings;
  const outcome: OverlayOutcome =
    overlayMode === 'delegated'
      ? { mode: 'delegated' }
      : await mergeLiveSources(ctx, OVERLAY_SOURCES, overlayTimeoutMs);
  return applyOverlay(committed.document, outcome);
}
