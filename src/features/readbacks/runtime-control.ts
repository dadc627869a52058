import type { RiskLevel } from '../approvals/approval-domain.js';
import { OPERATION_TYPES } from '../oplog/operation-log.js';
import { operationCountsByType } from '../oplog/operation-reads.js';
import { RISK_LEVELS } from '../repair/playbooks.js';
import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader, isRecord } from './document-shape.js';

/**
 * spec, Readbacks: live, agent-autonomous-runtime-control: "states the currently effective
 * autonomy policy". Three inputs, the strictest wins: the committed policy document (which
 * risk levels the owners allow, a kill switch), the live repair configuration (the decision
 * rules of repair-decision.ts, the playbook catalog, the executor) and the operation log
 * (what auto-repair actually did). The route then applies the public-terms redaction.
 */
export const RUNTIME_CONTROL = 'agent-autonomous-runtime-control';
const DAY_MS = 24 * 3600 * 1000;

export interface CommittedPolicy {
  allowed: readonly RiskLevel[] | null;
  blockedReasons: Record<string, string>;
  killSwitch: boolean;
  breakGlassRequested: boolean;
}

export function readPolicy(document: Record<string, unknown> | undefined): CommittedPolicy {
  if (!document)
    return { allowed: null, blockedReasons: {}, killSwitch: false, breakGlassRequested: false };
  const read = new DocumentReader(RUNTIME_CONTROL);
  const policy = read.object(document, 'policy') ?? {};
  const allowed =
    policy.auto_repair_risk_levels === undefined
      ? null
      : read.texts(policy, 'auto_repair_risk_levels');
  if (allowed?.some((risk) => !RISK_LEVELS.includes(risk as RiskLevel)))
    read.fail('policy.auto_repair_risk_levels has an unknown risk level');
  const blocked = read.object(policy, 'blocked_risk_levels') ?? {};
  for (const [risk, reason] of Object.entries(blocked)) {
    if (typeof reason !== 'string')
      read.fail(`policy.blocked_risk_levels.${risk} must be a reason`);
  }
  const breakGlass = read.object(policy, 'break_glass') ?? {};
  return {
    allowed: allowed as RiskLevel[] | null,
    blockedReasons: blocked as Record<string, string>,
    killSwitch: read.boolean(policy, 'kill_switch', false),
    breakGlassRequested: read.boolean(breakGlass, 'requested', false),
  };
}

/** Pure: per risk level, whether auto-repair may run and every reason it may not. */
export function effectivePolicy(policy: CommittedPolicy, playbookRisks: readonly RiskLevel[]) {
  return RISK_LEVELS.map((risk) => {
    const blockedBy: string[] = [];
    // repair-decision.ts: critical is break-glass; spec: "Critical-risk break-glass stays blocked"
    if (risk === 'critical') blockedBy.push('critical_break_glass');
    if (policy.killSwitch) blockedBy.push('kill_switch_engaged');
    if (policy.allowed !== null && !policy.allowed.includes(risk))
      blockedBy.push('not_in_committed_policy');
    if (policy.blockedReasons[risk])
      blockedBy.push(`committed_policy: ${policy.blockedReasons[risk]}`);
    return {
      risk_level: risk,
      auto_repair: blockedBy.length === 0,
      blocked_by: blockedBy,
      playbooks: playbookRisks.filter((r) => r === risk).length,
    };
  });
}

export function workItemsOf(document: Record<string, unknown> | undefined) {
  if (!document) return [];
  const read = new DocumentReader(RUNTIME_CONTROL);
  return read.objects(document, 'work_items').map((item, i) => {
    const progress = read.number(item, 'progress_percent', 0);
    if (progress < 0 || progress > 100)
      read.fail(`work_items[${i}].progress_percent must be 0-100`);
    return {
      id: read.text(item, 'id', `work_items[${i}].id`),
      title: read.text(item, 'title', `work_items[${i}].title`),
      status: read.text(item, 'status', `work_items[${i}].status`),
      progress_percent: progress,
      owner_role: read.optionalText(item, 'owner_role') ?? null,
    };
  });
}

async function operationCounts(ctx: ReadbackContext) {
  const rows = await operationCountsByType(ctx.services.store.db, ctx.now() - DAY_MS);
  const count = (type: string, success?: number, field: 'total' | 'last_24h' = 'total') =>
    rows
      .filter((r) => r.type === type && (success === undefined || Number(r.success) === success))
      .reduce((sum, r) => sum + Number(r[field] ?? 0), 0);
  return {
    by_type: Object.fromEntries(
      OPERATION_TYPES.map((type) => [
        type,
        { total: count(type), last_24h: count(type, undefined, 'last_24h') },
      ]),
    ),
    auto_repair_allowed: count('AUTO_REPAIR_TRIGGERED', 1),
    auto_repair_blocked: count('AUTO_REPAIR_TRIGGERED', 0),
    executions_succeeded: count('EXECUTION_COMPLETED', 1),
    executions_failed: count('EXECUTION_COMPLETED', 0),
  };
}

export async function runtimeControl(ctx: ReadbackContext) {
  const committed = optionalInput(ctx, RUNTIME_CONTROL);
  const document = committed?.document;
  if (document && document.policy !== undefined && !isRecord(document.policy)) {
    new DocumentReader(RUNTIME_CONTROL).fail('"policy" must be an object');
  }
  const policy = readPolicy(document);
  const levels = effectivePolicy(
    policy,
    ctx.playbooks.map((p) => p.risk_level),
  );
  const executor = ctx.services.config.repairExecutor;
  return {
    schema_version: 'agent_autonomous_runtime_control_v1',
    generated_at: new Date(ctx.now()).toISOString(),
    policy_source: committed
      ? { status: 'present', sha256: committed.sha256 }
      : { status: 'built_in_default' },
    summary: {
      auto_repair_risk_levels: levels.filter((l) => l.auto_repair).map((l) => l.risk_level),
      blocked_risk_levels: levels.filter((l) => !l.auto_repair).map((l) => l.risk_level),
      executor,
      // CONTRACT, Auto-repair: a dry run records the steps and leaves the approval to a person
      execution_mode: executor === 'dry-run' ? 'simulated_steps_only' : 'executes_playbooks',
    },
    effective_policy: {
      risk_levels: levels,
      severity_blockers: [
        { severity: 'P0', reason: 'spec: incident severity P0 blocks automatic repair' },
        { severity: 'P1', reason: 'spec: incident severity P1 blocks automatic repair' },
      ],
      kill_switch: policy.killSwitch,
      break_glass: {
        state: 'blocked',
        requested: policy.breakGlassRequested,
        reason: 'Critical-risk break-glass stays blocked: only two human signers can run it',
      },
    },
    live_counts: await operationCounts(ctx),
    work_items: workItemsOf(document),
  };
}
