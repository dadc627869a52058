import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput, requiredInput } from './compose.js';
import { findCredentials } from './credential-scan.js';
import { DocumentReader, isRecord } from './document-shape.js';
import { redactText } from './redaction.js';

/**
 * The two vcshost owner-evidence POSTs (spec, Readbacks: POST). Both validate only: nothing
 * is persisted, and a credential is never accepted, stored or echoed (findings name a path
 * and a kind, never a value). Their inner fields are "not shown"; these rules are ours.
 */
export const OWNER_RESPONSE_PREFLIGHT = 'vcshost-target-owner-response-intake-preflight';
export const REFS_VALIDATOR = 'vcshost-target-safe-credential-evidence-reviewer-validation';
export const DEFAULT_REQUIRED_REF_KINDS = ['backup_location', 'restore_test', 'owner_attestation'];
/** A redacted ref points at evidence; it never is the evidence. */
export const REF_SCHEMES = [
  'vault://',
  'secret-ref://',
  'sha256:',
  'readback:',
  'ticket:',
  'oplog:',
  'https://',
];

export type Routing = 'accepted' | 'needs-supplement' | 'quarantined' | 'rejected';

interface Finding {
  path: string;
  problem: string;
}

function topologyFindings(value: unknown, path: string, out: Finding[]): Finding[] {
  if (typeof value === 'string') {
    if (redactText(value) !== value)
      out.push({ path, problem: 'unredacted private address, host name or MAC' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => {
      topologyFindings(item, `${path}[${i}]`, out);
    });
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value))
      topologyFindings(item, path ? `${path}.${key}` : key, out);
  }
  return out;
}

/** Pure: the routing of one set of redacted evidence refs, strictest reason first. */
export function routeRedactedRefs(body: Record<string, unknown>, requiredKinds: readonly string[]) {
  const credentials = findCredentials(body);
  if (credentials.length > 0) {
    return {
      routing: 'rejected' as Routing,
      findings: credentials.map((c) => ({
        path: c.path,
        problem: `credential-like content (${c.kind}); not stored, not echoed`,
      })),
      missing_kinds: [] as string[],
    };
  }
  const refs = body.refs;
  if (
    refs !== undefined &&
    (!Array.isArray(refs) ||
      !refs.every((r) => isRecord(r) && typeof r.kind === 'string' && typeof r.ref === 'string'))
  ) {
    return {
      routing: 'rejected' as Routing,
      findings: [{ path: 'refs', problem: 'must be a list of {kind, ref} objects' }],
      missing_kinds: [],
    };
  }
  const list = (refs ?? []) as Array<{ kind: string; ref: string }>;
  const quarantine = topologyFindings(body, '', []);
  list.forEach((ref, i) => {
    if (!REF_SCHEMES.some((scheme) => ref.ref.startsWith(scheme)))
      quarantine.push({
        path: `refs[${i}].ref`,
        problem: `not a reference (${REF_SCHEMES.join(' ')})`,
      });
  });
  if (quarantine.length > 0)
    return { routing: 'quarantined' as Routing, findings: quarantine, missing_kinds: [] };
  const missing = requiredKinds.filter((kind) => !list.some((ref) => ref.kind === kind));
  if (missing.length > 0) {
    return {
      routing: 'needs-supplement' as Routing,
      findings: missing.map((kind) => ({ path: 'refs', problem: `no ${kind} reference` })),
      missing_kinds: missing,
    };
  }
  return { routing: 'accepted' as Routing, findings: [], missing_kinds: [] };
}

export async function validateRedactedRefs(ctx: ReadbackContext, body: unknown) {
  const committed = optionalInput(ctx, REFS_VALIDATOR);
  const read = new DocumentReader(REFS_VALIDATOR);
  const configured = committed ? read.texts(committed.document, 'required_ref_kinds') : [];
  const routed = routeRedactedRefs(
    body as Record<string, unknown>,
    configured.length > 0 ? configured : DEFAULT_REQUIRED_REF_KINDS,
  );
  const refs = (body as Record<string, unknown>).refs;
  return {
    schema_version: 'vcshost_redacted_refs_validation_v1',
    ...routed,
    ref_count: Array.isArray(refs) ? refs.length : 0,
    single_use: true,
    persisted: false,
  };
}

/** Owner response candidate: target known, decision allowed, required fields present. */
export async function ownerResponsePreflight(ctx: ReadbackContext, body: unknown) {
  const contract = requiredInput(ctx, OWNER_RESPONSE_PREFLIGHT);
  const read = new DocumentReader(OWNER_RESPONSE_PREFLIGHT);
  const targets = read.objects(contract.document, 'targets', true).map((t, i) => ({
    target_id: read.text(t, 'target_id', `targets[${i}].target_id`),
    required_fields: read.texts(t, 'required_fields', `targets[${i}].required_fields`),
  }));
  const decisions = read.texts(contract.document, 'allowed_decisions');
  const candidate = body as Record<string, unknown>;
  const credentials = findCredentials(candidate);
  const base = {
    schema_version: 'vcshost_owner_response_intake_preflight_v1',
    persisted: false,
    contract_sha256: contract.sha256,
  };
  if (credentials.length > 0) {
    return {
      ...base,
      status: 'rejected',
      findings: credentials.map((c) => ({
        path: c.path,
        problem: `credential-like content (${c.kind}); not stored, not echoed`,
      })),
    };
  }
  const findings: Finding[] = [];
  const target = targets.find((t) => t.target_id === candidate.target_id);
  if (!target)
    findings.push({
      path: 'target_id',
      problem: `must be one of ${targets.map((t) => t.target_id).join(', ')}`,
    });
  if (decisions.length > 0 && !decisions.includes(String(candidate.decision)))
    findings.push({ path: 'decision', problem: `must be one of ${decisions.join(', ')}` });
  for (const field of target?.required_fields ?? []) {
    const value = candidate[field];
    if (
      value === undefined ||
      value === null ||
      value === '' ||
      (Array.isArray(value) && value.length === 0)
    )
      findings.push({ path: field, problem: 'is required' });
  }
  findings.push(...topologyFindings(candidate, '', []));
  return {
    ...base,
    status: findings.length === 0 ? 'ready_for_owner_review' : 'needs_changes',
    findings,
  };
}
