import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader } from './document-shape.js';
import { type ProbeResult, probeSpecs, runProbes } from './probes.js';

export const MARKETDATA_RUNTIME = 'marketdata-public-api-runtime-readback';
export const MARKETDATA_PREFLIGHT = 'marketdata-public-api-controlled-recovery-preflight';
export const REGISTRY_PREFLIGHT = 'imgstore-registry-controlled-recovery-preflight';
/** Bounded: a preflight never proposes more than this many actions at once. */
export const MAX_ACTION_CANDIDATES = 3;
const AUTOMATIC_RISKS: ReadonlySet<string> = new Set(['low', 'medium']);

function overall(results: readonly ProbeResult[]): string {
  if (results.length === 0) return 'no_probes';
  const passed = results.filter((result) => result.passed).length;
  return passed === results.length ? 'healthy' : passed === 0 ? 'down' : 'degraded';
}

/** The committed scorecard's probes, run now and compared to its expectations. */
export async function publicApiRuntime(ctx: ReadbackContext) {
  const scorecard = optionalInput(ctx, MARKETDATA_RUNTIME);
  const generated = new Date(ctx.now()).toISOString();
  if (!scorecard) {
    return {
      schema_version: 'marketdata_public_api_runtime_readback_v1',
      generated_at: generated,
      status: 'no_scorecard',
      scorecard: { status: 'missing' },
      probes: [],
    };
  }
  const read = new DocumentReader(MARKETDATA_RUNTIME);
  const specs = probeSpecs(read, scorecard.document, ctx.settings.probeTimeoutMs);
  const results = await runProbes(specs, ctx);
  return {
    schema_version: 'marketdata_public_api_runtime_readback_v1',
    generated_at: generated,
    status: overall(results),
    scorecard: {
      status: 'present',
      sha256: scorecard.sha256,
      scorecard_id: scorecard.document.scorecard_id ?? null,
    },
    summary: {
      probes: results.length,
      passed: results.filter((r) => r.passed).length,
      failed: results.filter((r) => !r.passed).map((r) => r.id),
    },
    probes: results,
    boundaries: { read_only: true, method: 'GET', paid_service_called: false },
  };
}

interface Candidate {
  id: string;
  risk_level: string;
  when_probe_fails: string[];
  description: string | undefined;
}

function candidatesOf(read: DocumentReader, doc: Record<string, unknown>): Candidate[] {
  return read.objects(doc, 'action_candidates').map((item, i) => ({
    id: read.text(item, 'id', `action_candidates[${i}].id`),
    risk_level: read.text(item, 'risk_level', `action_candidates[${i}].risk_level`),
    when_probe_fails: read.texts(
      item,
      'when_probe_fails',
      `action_candidates[${i}].when_probe_fails`,
    ),
    description: read.optionalText(item, 'description'),
  }));
}

/** Pure: which bounded actions the failing probes call for, and which need an owner. */
export function selectCandidates(candidates: readonly Candidate[], failing: readonly string[]) {
  const triggered = candidates.filter((c) => c.when_probe_fails.some((id) => failing.includes(id)));
  const automatic = triggered.filter((c) => AUTOMATIC_RISKS.has(c.risk_level));
  return {
    proposed: automatic
      .slice(0, MAX_ACTION_CANDIDATES)
      .map((c) => ({ ...c, executes: false, mode: 'check_mode_first' })),
    deferred_beyond_bound: automatic.slice(MAX_ACTION_CANDIDATES).map((c) => c.id),
    requires_owner: triggered
      .filter((c) => !AUTOMATIC_RISKS.has(c.risk_level))
      .map((c) => ({ id: c.id, risk_level: c.risk_level })),
  };
}

/**
 * spec, Readbacks: live, the two controlled-recovery preflights: "target selector, source
 * diff, bounded action candidates, rollback and verifier, learning writeback contract". The
 * committed preflight names the target and the actions; the live part is its probes (the
 * public-API preflight falls back to the runtime scorecard's), whose failures select the
 * candidates. Nothing is executed and no workflow is started.
 */
export async function recoveryPreflight(ctx: ReadbackContext, name: string) {
  const committed = optionalInput(ctx, name);
  const generated = new Date(ctx.now()).toISOString();
  const base = { schema_version: `${name.replaceAll('-', '_')}_v1`, generated_at: generated };
  if (!committed)
    return {
      ...base,
      status: 'not_configured',
      preflight_source: { status: 'missing' },
      executes: false,
    };
  const read = new DocumentReader(name);
  const doc = committed.document;
  const targetSelector = read.object(doc, 'target_selector');
  if (!targetSelector) read.fail('"target_selector" is required');
  let specs = probeSpecs(read, doc, ctx.settings.probeTimeoutMs);
  if (specs.length === 0 && name === MARKETDATA_PREFLIGHT) {
    const scorecard = optionalInput(ctx, MARKETDATA_RUNTIME);
    if (scorecard)
      specs = probeSpecs(new DocumentReader(name), scorecard.document, ctx.settings.probeTimeoutMs);
  }
  const results = await runProbes(specs, ctx);
  const failing = results.filter((r) => !r.passed).map((r) => r.id);
  const selection = selectCandidates(candidatesOf(read, doc), failing);
  const status =
    results.length === 0
      ? 'no_live_evidence'
      : failing.length === 0
        ? 'no_action_needed'
        : selection.proposed.length > 0
          ? 'candidates_ready'
          : 'owner_review_required';
  return {
    ...base,
    status,
    preflight_source: { status: 'present', sha256: committed.sha256 },
    target_selector: targetSelector,
    source_diff: results.flatMap(
      (r): Array<Record<string, unknown>> =>
        r.error
          ? [{ probe: r.id, check: 'reachable', expected: true, actual: r.error }]
          : r.checks.filter((c) => !c.passed).map((c) => ({ probe: r.id, ...c })),
    ),
    probes: results,
    action_candidates: selection,
    rollback: read.object(doc, 'rollback') ?? null,
    verifier: read.object(doc, 'verifier') ?? null,
    learning_writeback_contract: read.object(doc, 'learning_writeback_contract') ?? null,
    executes: false,
    workflow_triggered: false,
  };
}
