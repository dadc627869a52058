import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { StringEnum } from '../../http/schema-types.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { findCredentials } from './credential-scan.js';
import { DocumentReader } from './document-shape.js';
import { shortHash } from './receipt-log.js';
import { REGISTRY_PREFLIGHT } from './recovery-preflight.js';

/**
 * spec, Readbacks: POST imgstore-registry-controlled-recovery-receipt: "validates the receipt
 * and returns a learning-writeback receipt; 422 with the validation text as detail on a value
 * error; returns no raw log". The receipt's fields are "not shown": this schema is ours. No
 * unknown field is accepted, so a raw log (`raw_log`, `stdout`) is refused by name, and the
 * answer carries refs and outcomes only. Nothing is stored.
 */
export const RecoveryReceiptBody = Type.Object(
  {
    receipt_id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' }),
    target: Type.String({ minLength: 1, maxLength: 200 }),
    action_id: Type.String({ minLength: 1, maxLength: 128 }),
    outcome: StringEnum(['succeeded', 'failed', 'rolled_back'] as const),
    check_mode: Type.Boolean(),
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.String({ format: 'date-time' }),
    verifier: Type.Object(
      { passed: Type.Boolean(), ref: Type.String({ minLength: 1, maxLength: 500 }) },
      { additionalProperties: false },
    ),
    rollback_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    evidence_refs: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      minItems: 1,
      maxItems: 50,
    }),
    notes: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

interface RecoveryReceipt {
  receipt_id: string;
  target: string;
  action_id: string;
  outcome: 'succeeded' | 'failed' | 'rolled_back';
  check_mode: boolean;
  started_at: string;
  finished_at: string;
  verifier: { passed: boolean; ref: string };
  rollback_ref?: string;
  evidence_refs: string[];
}

/** Pure: the value errors the schema cannot see; the first one is the 422's detail. */
export function receiptValueErrors(
  receipt: RecoveryReceipt,
  knownActions: readonly string[] | null,
): string[] {
  const problems: string[] = [];
  const credential = findCredentials(receipt)[0];
  if (credential)
    problems.push(
      `body.${credential.path} looks like a credential (${credential.kind}); receipts carry references only`,
    );
  if (Date.parse(receipt.finished_at) < Date.parse(receipt.started_at))
    problems.push('body.finished_at must not be before body.started_at');
  if (receipt.outcome === 'rolled_back' && !receipt.rollback_ref)
    problems.push('body.rollback_ref is required when body.outcome is rolled_back');
  if (knownActions && !knownActions.includes(receipt.action_id)) {
    problems.push(
      `body.action_id must be one of the preflight's action candidates: ${knownActions.join(', ')}`,
    );
  }
  return problems;
}

export async function recoveryReceipt(ctx: ReadbackContext, body: unknown) {
  const receipt = body as RecoveryReceipt;
  const preflight = optionalInput(ctx, REGISTRY_PREFLIGHT);
  const read = new DocumentReader(REGISTRY_PREFLIGHT);
  const actions = preflight
    ? read
        .objects(preflight.document, 'action_candidates')
        .map((a, i) => read.text(a, 'id', `action_candidates[${i}].id`))
    : null;
  const problem = receiptValueErrors(receipt, actions && actions.length > 0 ? actions : null)[0];
  if (problem) throw errors.validation(problem);
  const learnable = receipt.outcome === 'succeeded' && receipt.verifier.passed;
  return {
    schema_version: 'imgstore_registry_learning_writeback_receipt_v1',
    receipt_id: receipt.receipt_id,
    accepted: true,
    learning_writeback: {
      status: learnable ? 'ready_for_learning' : 'needs_owner_review',
      lesson: {
        target: receipt.target,
        action_id: receipt.action_id,
        outcome: receipt.outcome,
        check_mode: receipt.check_mode,
        verifier_passed: receipt.verifier.passed,
        duration_seconds: Math.round(
          (Date.parse(receipt.finished_at) - Date.parse(receipt.started_at)) / 1000,
        ),
      },
      refs: {
        verifier_ref: receipt.verifier.ref,
        rollback_ref: receipt.rollback_ref ?? null,
        evidence_refs: receipt.evidence_refs,
      },
      dedup_key: shortHash([
        receipt.receipt_id,
        receipt.target,
        receipt.action_id,
        receipt.outcome,
      ]),
    },
    preflight_source: preflight
      ? { status: 'present', sha256: preflight.sha256 }
      : { status: 'missing' },
    persisted: false,
    raw_log_included: false,
  };
}
