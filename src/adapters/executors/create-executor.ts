import type { Config } from '../../config.js';
import type { Executor } from '../../ports/executor.js';
import { createDryRunExecutor } from './dry-run-executor.js';
import { createKubectlExecutor } from './kubectl-executor.js';

/** CONTRACT, Configuration: REPAIR_EXECUTOR picks `dry-run` (default) or `kubectl`. */
export function createExecutor(
  config: Pick<Config, 'repairExecutor' | 'kubectlContext'>,
  options: { binary?: string; timeoutMs?: number } = {},
): Executor {
  if (config.repairExecutor === 'kubectl') {
    // loadConfig refuses kubectl without KUBECTL_CONTEXT; this guards hand-built configs.
    if (!config.kubectlContext)
      throw new Error('KUBECTL_CONTEXT: is required when REPAIR_EXECUTOR=kubectl');
    return createKubectlExecutor({ context: config.kubectlContext, ...options });
  }
  return createDryRunExecutor({ context: config.kubectlContext });
}
