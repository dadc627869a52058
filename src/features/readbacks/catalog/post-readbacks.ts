import { Type } from 'typebox';
import { COVERAGE_READBACK } from '../alert-coverage.js';
import { applyLiveReceipts } from '../live-receipts.js';
import {
  OWNER_RESPONSE_PREFLIGHT,
  ownerResponsePreflight,
  REFS_VALIDATOR,
  validateRedactedRefs,
} from '../owner-evidence.js';
import { REGISTRY_PREFLIGHT } from '../recovery-preflight.js';
import { RecoveryReceiptBody, recoveryReceipt } from '../recovery-receipt.js';
import {
  applyConsumers,
  CONSUMER_READBACK,
  dispatchWritebacks,
  EXECUTOR_READBACK,
} from '../writeback-receipts.js';
import type { PostEntry } from './readback-types.js';

const AnyObjectBody = Type.Object({}, { additionalProperties: true });

/**
 * spec, Endpoints: "Readbacks: POST". "The write endpoints store no raw payloads, read no
 * secrets and trigger no workflow": the validators persist nothing; the three writers append
 * metadata-only receipts to the operation log, each at most once.
 */
export const POST_READBACKS: readonly PostEntry[] = [
  {
    kind: 'post',
    name: 'imgstore-registry-controlled-recovery-receipt',
    errors: [422],
    summary:
      'Validate a registry recovery receipt; answer a learning-writeback receipt (nothing stored)',
    inputs: [REGISTRY_PREFLIGHT],
    body: RecoveryReceiptBody,
    handle: recoveryReceipt,
  },
  {
    kind: 'post',
    name: OWNER_RESPONSE_PREFLIGHT,
    errors: [404, 500],
    summary:
      'Validate an owner response candidate against the committed intake contract (nothing stored)',
    inputs: [OWNER_RESPONSE_PREFLIGHT],
    body: AnyObjectBody,
    handle: ownerResponsePreflight,
  },
  {
    kind: 'post',
    name: `${REFS_VALIDATOR}/validate-redacted-refs`,
    errors: [],
    summary:
      'Route redacted evidence refs: accepted, needs-supplement, quarantined or rejected (nothing stored)',
    inputs: [REFS_VALIDATOR],
    body: AnyObjectBody,
    handle: validateRedactedRefs,
  },
  {
    kind: 'post',
    name: 'agent-log-controlled-writeback-dispatch',
    errors: [500],
    summary: 'Write metadata-only dispatch receipts for ready writeback items (idempotent)',
    inputs: [EXECUTOR_READBACK],
    handle: (ctx) => dispatchWritebacks(ctx),
  },
  {
    kind: 'post',
    name: 'agent-log-controlled-writeback-consumer-apply',
    errors: [500],
    summary: 'Write consumer context receipts for ready dispatch receipts (idempotent)',
    inputs: [CONSUMER_READBACK],
    handle: (ctx) => applyConsumers(ctx),
  },
  {
    kind: 'post',
    name: 'chatops-alert-monitoring-live-receipt-apply',
    errors: [500],
    summary:
      'Write metadata-only live-receipt rows per observed alert type (idempotent; no chat message)',
    inputs: [COVERAGE_READBACK],
    handle: (ctx) => applyLiveReceipts(ctx),
  },
];
