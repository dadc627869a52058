import {
  COVERAGE_READBACK,
  coverageReadback,
  liveReceiptApplyReadback,
} from '../alert-coverage.js';
import { GITSERVER_GATES, gitserverGate } from '../gitserver-gates.js';
import { LEARNING_VERIFIER, learningVerifier } from '../learning-verifier.js';
import { liveOpsScene } from '../live-ops-scene.js';
import { PRIORITY_WORK_ORDER, priorityWorkOrder } from '../priority-overlay.js';
import {
  MARKETDATA_PREFLIGHT,
  MARKETDATA_RUNTIME,
  publicApiRuntime,
  REGISTRY_PREFLIGHT,
  recoveryPreflight,
} from '../recovery-preflight.js';
import { RUNTIME_CONTROL, runtimeControl } from '../runtime-control.js';
import { SOURCE_HEALTH, sourceHealth } from '../source-health.js';
import { CONSUMER_READBACK, consumerReadback, EXECUTOR_READBACK } from '../writeback-receipts.js';
import type { LiveEntry } from './readback-types.js';

/**
 * spec, Endpoints: "Readbacks: live or composed". Each is computed per request from what the
 * service holds or can probe; `inputs` are the committed documents it reads. Only the rows
 * that list "404 missing data" need their input; the others report a missing input inside a
 * 200 answer (the rows name only the 500).
 */
export const LIVE_READBACKS: readonly LiveEntry[] = [
  {
    kind: 'live',
    name: RUNTIME_CONTROL,
    summary:
      'Effective autonomy policy: committed policy, live repair configuration and operation-log counts',
    inputs: [RUNTIME_CONTROL],
    errors: [500],
    publicTerms: true,
    compute: runtimeControl,
  },
  {
    kind: 'live',
    name: 'agentcore-live-ops-scene-state',
    summary: 'Animation scene: actors, activity and the latest public-safe trace events',
    inputs: [RUNTIME_CONTROL],
    errors: [500],
    // derived from the public-safe ledger: the same glossary keeps code names out of it
    publicTerms: true,
    compute: liveOpsScene,
  },
  {
    kind: 'live',
    name: PRIORITY_WORK_ORDER,
    summary: 'Mainline P0/P1 work order with the live overlay fields',
    inputs: [PRIORITY_WORK_ORDER],
    errors: [404, 500],
    compute: priorityWorkOrder,
  },
  {
    kind: 'live',
    name: MARKETDATA_RUNTIME,
    summary:
      'Public HTTPS health, freshness and ingestion probes compared to the committed scorecard',
    inputs: [MARKETDATA_RUNTIME],
    errors: [500],
    compute: publicApiRuntime,
  },
  {
    kind: 'live',
    name: MARKETDATA_PREFLIGHT,
    summary:
      'Public-API controlled recovery preflight: selector, diff, bounded candidates, rollback, verifier',
    inputs: [MARKETDATA_PREFLIGHT, MARKETDATA_RUNTIME],
    errors: [500],
    compute: (ctx) => recoveryPreflight(ctx, MARKETDATA_PREFLIGHT),
  },
  {
    kind: 'live',
    name: REGISTRY_PREFLIGHT,
    summary: 'Image registry controlled recovery preflight',
    inputs: [REGISTRY_PREFLIGHT],
    errors: [500],
    compute: (ctx) => recoveryPreflight(ctx, REGISTRY_PREFLIGHT),
  },
  ...(['apply', 'plan', 'receipt', 'enablement'] as const).map(
    (gate): LiveEntry => ({
      kind: 'live',
      name: GITSERVER_GATES[gate],
      summary: `Git hosting warning-step gate (${gate}); triggers no workflow`,
      inputs: Object.values(GITSERVER_GATES),
      errors: [500],
      compute: async (ctx) => gitserverGate(ctx, gate),
    }),
  ),
  {
    kind: 'live',
    name: CONSUMER_READBACK,
    summary: 'Dispatch receipts from the operation log projected onto consumer bindings',
    inputs: [CONSUMER_READBACK, EXECUTOR_READBACK],
    errors: [500],
    compute: consumerReadback,
  },
  {
    kind: 'live',
    name: LEARNING_VERIFIER,
    summary:
      'Learning receipts verified against selector, diff, check-mode, rollback and verifier refs',
    inputs: [LEARNING_VERIFIER],
    errors: [500],
    compute: learningVerifier,
  },
  {
    kind: 'live',
    name: COVERAGE_READBACK,
    summary:
      'Coverage of the alert types by playbooks (automation routes) and database/log/live receipts',
    inputs: [COVERAGE_READBACK],
    errors: [404, 500],
    compute: coverageReadback,
  },
  {
    kind: 'live',
    name: 'chatops-alert-monitoring-live-receipt-apply-readback',
    summary: 'Live-receipt rows of the operation log mapped to coverage batches',
    inputs: [COVERAGE_READBACK],
    errors: [500],
    compute: liveReceiptApplyReadback,
  },
  {
    kind: 'live',
    name: SOURCE_HEALTH,
    summary: 'Health of the report data sources, all-zero interpretation, unsent report preview',
    inputs: [SOURCE_HEALTH],
    errors: [500],
    compute: sourceHealth,
  },
];
