import type { Executor, PlaybookStep, StepResult } from '../../ports/executor.js';

// Anything beyond these characters is quoted, so the recorded line can be pasted into a shell.
const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;

/** A step as the command line kubectl would run, for the operation log and the chat. */
export function formatCommandLine(context: string | undefined, args: readonly string[]): string {
  const argv = ['kubectl', ...(context ? ['--context', context] : []), ...args];
  return argv
    .map((arg) => (SHELL_SAFE.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}

/**
 * REPAIR_EXECUTOR=dry-run (the default): records each step it would take and changes
 * nothing. CONTRACT, Auto-repair: "A dry run records each step in the operation log and
 * leaves the approval `pending` for a person".
 */
export function createDryRunExecutor(options: { context?: string } = {}): Executor {
  return {
    name: 'dry-run',
    changesState: false,
    async run(step: PlaybookStep): Promise<StepResult> {
      return {
        step_id: step.id,
        success: true,
        output: formatCommandLine(options.context, step.args),
        simulated: true,
      };
    },
  };
}
