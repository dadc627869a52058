/** One step of a repair playbook, e.g. `kubectl rollout restart deployment/<workload>`. */
export interface PlaybookStep {
  id: string;
  description: string;
  /**
   * kubectl's arguments, without the binary and without `--context` (the executor adds both),
   * after placeholders such as `{namespace}` are filled in (run-playbook.ts, fillSteps).
   */
  args: string[];
}

export interface StepResult {
  step_id: string;
  /** Exit code 0 for kubectl; always true for a dry run. */
  success: boolean;
  /** Dry run: the command line. kubectl: trimmed stdout and stderr, capped (tail kept). */
  output: string;
  /** True when the step was only described, not run (dry run). */
  simulated: boolean;
}

/** Runs repair steps: `dry-run` records what it would do, `kubectl` runs them. */
export interface Executor {
  readonly name: 'dry-run' | 'kubectl';
  /**
   * A real executor changes the cluster and moves the approval through `executing`; a dry run
   * leaves it `pending` for a person (CONTRACT, Auto-repair).
   */
  readonly changesState: boolean;
  /**
   * Resolves with success false when the command fails, times out or is aborted through
   * `signal`; rejecting is left to unexpected faults (run-playbook.ts treats both as a failed
   * step).
   */
  run(step: PlaybookStep, signal: AbortSignal): Promise<StepResult>;
}
