import type { ReadbackContext } from './catalog/readback-types.js';
import { optionalInput } from './compose.js';
import { DocumentReader } from './document-shape.js';

/**
 * spec, Readbacks: live, the four gitserver onboarding warning-step gates: "controlled-copy
 * and enablement gates for the warning step; no workflow is triggered". They form a chain:
 * execution plan → apply gate → copy receipt → runtime enablement. Each reads its committed
 * document and the state of the gates before it, so a gate is `ready` only when everything
 * upstream is; each answer states that no workflow was or may be dispatched from here.
 */
const PREFIX = 'platform-gitserver-onboarding-warning-step';
export const GITSERVER_GATES = {
  plan: `${PREFIX}-template-copy-execution-plan`,
  apply: `${PREFIX}-template-copy-apply-gate`,
  receipt: `${PREFIX}-template-copy-receipt`,
  enablement: `${PREFIX}-runtime-enablement-gate`,
} as const;
type Gate = keyof typeof GITSERVER_GATES;

export interface GateState {
  gate: string;
  status: 'ready' | 'blocked' | 'not_configured';
  blocked_by: string[];
  details: Record<string, unknown>;
}

function state(
  gate: Gate,
  blockedBy: string[],
  details: Record<string, unknown>,
  configured = true,
): GateState {
  return {
    gate: GITSERVER_GATES[gate],
    status: !configured ? 'not_configured' : blockedBy.length === 0 ? 'ready' : 'blocked',
    blocked_by: configured ? blockedBy : [`${GITSERVER_GATES[gate]}_missing`],
    details,
  };
}

function planState(ctx: ReadbackContext): GateState & { targets: string[] } {
  const committed = optionalInput(ctx, GITSERVER_GATES.plan);
  if (!committed) return { ...state('plan', [], {}, false), targets: [] };
  const read = new DocumentReader(GITSERVER_GATES.plan);
  const targets = read.texts(committed.document, 'target_repositories');
  const steps = read.objects(committed.document, 'steps').map((step, i) => ({
    id: read.text(step, 'id', `steps[${i}].id`),
    description: read.optionalText(step, 'description') ?? null,
  }));
  const blocked = [
    ...(targets.length === 0 ? ['no_target_repositories'] : []),
    ...(steps.length === 0 ? ['no_copy_steps'] : []),
  ];
  const template = read.optionalText(committed.document, 'template_ref') ?? null;
  return {
    ...state('plan', blocked, { template_ref: template, target_repositories: targets, steps }),
    targets,
  };
}

function applyState(ctx: ReadbackContext, plan: GateState): GateState {
  const committed = optionalInput(ctx, GITSERVER_GATES.apply);
  if (!committed) return state('apply', [], {}, false);
  const read = new DocumentReader(GITSERVER_GATES.apply);
  const required = read.texts(committed.document, 'required_approvals');
  const approvals = read
    .objects(committed.document, 'approvals')
    .map((a, i) => read.text(a, 'role', `approvals[${i}].role`));
  const missing = required.filter((role) => !approvals.includes(role));
  const blocked = [
    ...(plan.status === 'ready' ? [] : ['execution_plan_not_ready']),
    ...missing.map((role) => `approval_missing:${role}`),
  ];
  return state('apply', blocked, { required_approvals: required, approvals_present: approvals });
}

function receiptState(
  ctx: ReadbackContext,
  targets: readonly string[],
  apply: GateState,
): GateState {
  const committed = optionalInput(ctx, GITSERVER_GATES.receipt);
  if (!committed) return state('receipt', [], {}, false);
  const read = new DocumentReader(GITSERVER_GATES.receipt);
  const copied = read
    .objects(committed.document, 'copies')
    .map((c, i) => read.text(c, 'repository', `copies[${i}].repository`));
  const pending = targets.filter((repo) => !copied.includes(repo));
  const blocked = [
    ...(apply.status === 'ready' ? [] : ['apply_gate_not_ready']),
    ...pending.map((repo) => `copy_receipt_missing:${repo}`),
  ];
  return state('receipt', blocked, {
    copied_repositories: copied,
    pending_repositories: pending,
    unplanned_copies: copied.filter((repo) => !targets.includes(repo)),
  });
}

function enablementState(ctx: ReadbackContext, receipt: GateState): GateState {
  const committed = optionalInput(ctx, GITSERVER_GATES.enablement);
  if (!committed) return state('enablement', [], {}, false);
  const read = new DocumentReader(GITSERVER_GATES.enablement);
  const checks = read.objects(committed.document, 'enablement_checks').map((c, i) => ({
    id: read.text(c, 'id', `enablement_checks[${i}].id`),
    passed: read.boolean(c, 'passed', false),
  }));
  const blocked = [
    ...(receipt.status === 'ready' ? [] : ['copy_receipt_not_ready']),
    ...checks.filter((c) => !c.passed).map((c) => `check_not_passed:${c.id}`),
  ];
  return state('enablement', blocked, {
    enablement_checks: checks,
    mode: 'warning_step_check_mode_only',
  });
}

/** One gate with the chain before it; pure over the committed documents. */
export function gitserverGate(ctx: ReadbackContext, gate: Gate) {
  const plan = planState(ctx);
  const chain: GateState[] = [plan];
  if (gate !== 'plan') chain.push(applyState(ctx, plan));
  if (gate === 'receipt' || gate === 'enablement')
    chain.push(receiptState(ctx, plan.targets, chain[1]!));
  if (gate === 'enablement') chain.push(enablementState(ctx, chain[2]!));
  const { targets: _targets, ...first } = plan;
  const states = [first, ...chain.slice(1)];
  const own = states[states.length - 1]!;
  return {
    schema_version: `${own.gate.replaceAll('-', '_')}_v1`,
    generated_at: new Date(ctx.now()).toISOString(),
    ...own,
    upstream: states
      .slice(0, -1)
      .map((s) => ({ gate: s.gate, status: s.status, blocked_by: s.blocked_by })),
    workflow_triggered: false,
    workflow_dispatch_allowed: false,
  };
}
