/** One step of a repair playbook, e.g. `kubectl rollout restart deployment/<workload>`. */
export interface PlaybookStep {
  id: string;
  description: string;
  /** The command's arguments, after placeholders such as `{namespace}` are filled in. */
  args: string[];
}

export interface StepResult {
  step_id: string;
  success: boolean;
  output: string;
  /** True when the step was only described, not run (dry run). */
  simulated: boolean;
}

/** Runs repair steps: `dry-run` records what it would do, `kubectl` runs them. */
export interface Executor {
  readonly name: 'dry-run' | 'kubectl';
  /** A real executor changes the cluster; a dry run leaves the approval for a person. */
  readonly changesState: boolean;
  run(step: PlaybookStep, signal: AbortSignal): Promise<StepResult>;
}
