import { performance } from 'node:perf_hooks';
import type { Clock } from '../../ports/clock.js';
import type { Executor, PlaybookStep, StepResult } from '../../ports/executor.js';
import type { OperationEntry } from '../oplog/operation-log.js';
import type { OperationLog } from '../oplog/operation-log-writer.js';
import type { Placeholder, Playbook } from './playbooks.js';

/** Where a playbook runs, and which records its run belongs to. */
export interface RepairTarget {
  namespace: string;
  workload: string;
  /** The alerting resource: a pod, node or volume claim name. */
  target: string;
  incident_id: string | null;
  approval_id: string | null;
}

/** spec, Automatic repair, "Result". `playbook_id` is null only when nothing matched. */
export interface RepairResult {
  success: boolean;
  playbook_id: string | null;
  executed_steps: StepResult[];
  execution_time_ms: number;
  error: string | null;
}

export interface RunPlaybookDeps {
  oplog: Pick<OperationLog, 'append'>;
  clock: Clock;
  executor: Executor;
  /** KUBECTL_CONTEXT, for steps that name `{context}`. */
  kubectlContext?: string;
  signal?: AbortSignal;
}

// Kubernetes object names (RFC 1123): a filled value can never be an option (`--all`) or a
// second resource (`a b`), even though execFile already keeps it one argument.
const LABEL_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const SUBDOMAIN_NAME = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const CONTEXT_NAME = /^[^-\s][^\s]*$/;
const FILLED = /\{(namespace|workload|target|context)\}/g;

const PATTERNS: Record<Placeholder, RegExp> = {
  namespace: LABEL_NAME,
  workload: SUBDOMAIN_NAME,
  target: SUBDOMAIN_NAME,
  context: CONTEXT_NAME,
};

/** The playbook's steps with placeholders filled, or why they cannot be. */
export function fillSteps(
  steps: readonly PlaybookStep[],
  values: Record<Placeholder, string | undefined>,
): { steps: PlaybookStep[] } | { error: string } {
  const filled: PlaybookStep[] = [];
  for (const step of steps) {
    for (const [, name] of step.args.join('\n').matchAll(FILLED)) {
      const value = values[name as Placeholder];
      if (!value)
        return { error: `step ${step.id} needs {${name}}, which this approval does not name` };
      if (!PATTERNS[name as Placeholder].test(value)) {
        return { error: `step ${step.id}: {${name}} "${value}" is not a valid Kubernetes name` };
      }
    }
    const args = step.args.map((arg) =>
      arg.replace(FILLED, (_, name: string) => values[name as Placeholder] ?? ''),
    );
    filled.push({ ...step, args });
  }
  return { steps: filled };
}

/**
 * Runs a playbook's steps in order through the executor and stops at the first failed step;
 * writes one EXECUTION_COMPLETED entry whose context lists every step run (for a dry run,
 * the commands it would have run: CONTRACT, "A dry run records each step").
 */
export async function runPlaybook(
  deps: RunPlaybookDeps,
  playbook: Playbook,
  target: RepairTarget,
  actor: string,
): Promise<RepairResult> {
  const result = await playSteps(deps, playbook, target);
  await recordExecution(deps, result, target, actor, playbook.steps.length);
  return result;
}

/** The steps run through the executor, stopping at the first that fails; nothing recorded. */
export async function playSteps(
  deps: Pick<RunPlaybookDeps, 'executor' | 'kubectlContext' | 'signal'>,
  playbook: Playbook,
  target: RepairTarget,
): Promise<RepairResult> {
  const { executor } = deps;
  // Elapsed time comes from the monotonic clock; the log entry gets its stamp when written.
  const started = performance.now();
  const executed: StepResult[] = [];
  let error: string | null = null;
  const filled = fillSteps(playbook.steps, { ...target, context: deps.kubectlContext });
  if ('error' in filled) {
    error = filled.error;
  } else {
    const signal = deps.signal ?? new AbortController().signal;
    for (const step of filled.steps) {
      const result = await runStep(executor, step, signal);
      executed.push(result);
      if (!result.success) {
        error = `Step ${step.id} failed: ${result.output || 'no output'}`;
        break;
      }
    }
  }
  return {
    success: error === null,
    playbook_id: playbook.id,
    executed_steps: executed,
    execution_time_ms: Math.round(performance.now() - started),
    error,
  };
}

async function runStep(executor: Executor, step: PlaybookStep, signal: AbortSignal) {
  try {
    return await executor.run(step, signal);
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return { step_id: step.id, success: false, output: message, simulated: !executor.changesState };
  }
}

/** spec, Automatic repair: the EXECUTION_COMPLETED entry of one run (or of a run refused). */
export function executionEntry(
  executor: Pick<Executor, 'name' | 'changesState'>,
  result: RepairResult,
  target: RepairTarget,
  actor: string,
  totalSteps: number,
): OperationEntry {
  const done = result.executed_steps.filter((step) => step.success).length;
  const actionDetail =
    result.playbook_id === null
      ? 'No playbook to execute'
      : `Playbook ${result.playbook_id} via ${executor.name}: ${done}/${totalSteps} steps ${executor.changesState ? 'succeeded' : 'recorded (dry run)'}`;
  return {
    type: 'EXECUTION_COMPLETED',
    incidentId: target.incident_id,
    approvalId: target.approval_id,
    actor,
    actionDetail,
    success: result.success,
    errorMessage: result.error,
    context: {
      playbook_id: result.playbook_id,
      executed_steps: result.executed_steps,
      execution_time_ms: result.execution_time_ms,
      executor: executor.name,
    },
  };
}

/** Appends the EXECUTION_COMPLETED entry of one run. */
export async function recordExecution(
  deps: Pick<RunPlaybookDeps, 'oplog' | 'clock' | 'executor'>,
  result: RepairResult,
  target: RepairTarget,
  actor: string,
  totalSteps: number,
): Promise<void> {
  await deps.oplog.append(
    executionEntry(deps.executor, result, target, actor, totalSteps),
    deps.clock.now(),
  );
}
