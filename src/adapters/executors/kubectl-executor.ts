import { execFile } from 'node:child_process';
import type { Executor, PlaybookStep, StepResult } from '../../ports/executor.js';

export interface KubectlExecutorOptions {
  /** KUBECTL_CONTEXT: every command names it, so the ambient current-context never decides. */
  context: string;
  /** A path or a name looked up on PATH. */
  binary?: string;
  /** Per step; a `rollout status --timeout=…` inside a step should stay below it. */
  timeoutMs?: number;
}

export const KUBECTL_TIMEOUT_MS = 10 * 60_000;
/** Kept in the operation log per step; drain and rollout output can run to many pages. */
export const OUTPUT_LIMIT = 4000;
const MAX_BUFFER = 4 * 1024 * 1024;

/**
 * REPAIR_EXECUTOR=kubectl: runs `kubectl --context <ctx> <args…>` with execFile, never a
 * shell, so filled-in placeholders stay single arguments. A step succeeds on exit code 0.
 */
export function createKubectlExecutor(options: KubectlExecutorOptions): Executor {
  const binary = options.binary ?? 'kubectl';
  const timeoutMs = options.timeoutMs ?? KUBECTL_TIMEOUT_MS;
  return {
    name: 'kubectl',
    changesState: true,
    run(step: PlaybookStep, signal: AbortSignal): Promise<StepResult> {
      const result = (success: boolean, output: string): StepResult => ({
        step_id: step.id,
        success,
        output: capOutput(output),
        simulated: false,
      });
      if (signal.aborted) return Promise.resolve(result(false, 'aborted before start'));
      return new Promise((resolve) => {
        execFile(
          binary,
          ['--context', options.context, ...step.args],
          { timeout: timeoutMs, signal, maxBuffer: MAX_BUFFER, windowsHide: true },
          (error, stdout, stderr) => {
            const output = [stdout.trim(), stderr.trim()].filter(Boolean).join('\n');
            if (!error) return resolve(result(true, output));
            resolve(
              result(
                false,
                [output, failureOf(error, binary, timeoutMs)].filter(Boolean).join('\n'),
              ),
            );
          },
        );
      });
    },
  };
}

function failureOf(
  error: Error & { code?: unknown; killed?: boolean; signal?: NodeJS.Signals | null },
  binary: string,
  timeoutMs: number,
): string {
  if (error.name === 'AbortError') return 'aborted';
  if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return `output over ${MAX_BUFFER} bytes`;
  if (error.killed && error.signal) return `timed out after ${timeoutMs} ms (${error.signal})`;
  if (typeof error.code === 'number') return `exit code ${error.code}`;
  if (error.signal) return `killed by ${error.signal}`;
  // ENOENT, EACCES: kubectl itself could not be started.
  return `cannot run ${binary}: ${error.message}`;
}

/** Keeps the tail: the last lines say how a command ended, and errors come last. */
export function capOutput(output: string, limit = OUTPUT_LIMIT): string {
  return output.length <= limit ? output : `…${output.slice(output.length - limit + 1)}`;
}
