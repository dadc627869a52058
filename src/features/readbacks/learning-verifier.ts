import { operationExists } from '../oplog/operation-reads.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader, isRecord } from './document-shape.js';

/**
 * spec, Readbacks: live, chatops-alert-learning-context-post-apply-verifier: "verifies
 * learning receipts against selector, diff, check-mode, rollback and verifier refs". Each ref
 * is resolved against what the service holds now: `readback:<name>` (a catalog path whose
 * committed file exists, or a live readback), `oplog:<entry id>`, `playbook:<id>`. Any other
 * form (a URL, a ticket) is reported as external and unverified, never fetched.
 */
export const LEARNING_VERIFIER = 'chatops-alert-learning-context-post-apply-verifier';
export const LEARNING_REFS = [
  'selector_ref',
  'diff_ref',
  'check_mode_ref',
  'rollback_ref',
  'verifier_ref',
] as const;

type RefState = 'resolved' | 'unresolved' | 'external_unverified' | 'missing';

async function resolveRef(ctx: ReadbackContext, ref: unknown): Promise<RefState> {
  if (typeof ref !== 'string' || ref.trim() === '') return 'missing';
  const [scheme, ...rest] = ref.split(':');
  const value = rest.join(':');
  switch (scheme) {
    case 'readback': {
      if (!ctx.readbackNames.has(value)) return 'unresolved';
      const outcome = ctx.files.load(value);
      // live readbacks are computed on request: naming one is enough
      return outcome.status === 'present' || outcome.status === 'missing'
        ? 'resolved'
        : 'unresolved';
    }
    case 'oplog': {
      return (await operationExists(ctx.services.store.db, value)) ? 'resolved' : 'unresolved';
    }
    case 'playbook':
      return ctx.playbooks.some((playbook) => playbook.id === value) ? 'resolved' : 'unresolved';
    default:
      return 'external_unverified';
  }
}

export async function learningVerifier(ctx: ReadbackContext) {
  const committed = optionalInput(ctx, LEARNING_VERIFIER);
  const generated = new Date(ctx.now()).toISOString();
  const read = new DocumentReader(LEARNING_VERIFIER);
  const receipts = committed ? read.objects(committed.document, 'learning_receipts', true) : [];
  const verified = await Promise.all(
    receipts.map(async (receipt, i) => {
      const refs = receipt.refs === undefined ? {} : receipt.refs;
      if (!isRecord(refs)) read.fail(`learning_receipts[${i}].refs must be an object`);
      const states = Object.fromEntries(
        await Promise.all(
          LEARNING_REFS.map(
            async (key) =>
              [key, await resolveRef(ctx, (refs as Record<string, unknown>)[key])] as const,
          ),
        ),
      ) as Record<(typeof LEARNING_REFS)[number], RefState>;
      const values = Object.values(states);
      const verdict = values.includes('missing')
        ? 'incomplete'
        : values.includes('unresolved')
          ? 'unresolved'
          : values.every((s) => s === 'resolved')
            ? 'verified'
            : 'verified_with_external_refs';
      return {
        receipt_id: read.text(receipt, 'receipt_id', `learning_receipts[${i}].receipt_id`),
        alert_type: read.optionalText(receipt, 'alert_type') ?? null,
        refs: states,
        verdict,
      };
    }),
  );
  const count = (verdict: string) => verified.filter((r) => r.verdict === verdict).length;
  return {
    schema_version: 'chatops_alert_learning_context_post_apply_verifier_v1',
    generated_at: generated,
    status: !committed
      ? 'no_learning_receipts'
      : verified.every((r) => r.verdict.startsWith('verified'))
        ? 'verified'
        : 'attention_required',
    source: committed ? { status: 'present', sha256: committed.sha256 } : { status: 'missing' },
    summary: {
      receipts: verified.length,
      verified: count('verified') + count('verified_with_external_refs'),
      incomplete: count('incomplete'),
      unresolved: count('unresolved'),
    },
    receipts: verified,
    boundaries: { chat_message_sent: false, writes: false },
  };
}
