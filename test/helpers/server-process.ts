import { type ChildProcess, spawn } from 'node:child_process';
import { atFileEnd } from './file-end.js';
import { serviceEntry } from './service-entry.js';

export interface ServerProcessOptions {
  /** Started under `ulimit -n` of this many descriptors (soft and hard). */
  descriptorLimit?: number;
}

/**
 * `src/server.ts` as a process of its own, so a test can really kill it. Embedded by
 * default (no DATABASE_URL or REDIS_URL from the test run leaks in); resolves with its URL.
 */
export function startServerProcess(
  env: Record<string, string>,
  options: ServerProcessOptions = {},
): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const node = [process.execPath, ...serviceEntry('server')];
  const limit = options.descriptorLimit;
  // `exec`, so the child is the server itself and killing it kills the server.
  const [command, ...args] =
    limit === undefined ? node : ['sh', '-c', `ulimit -n ${limit} && exec "$@"`, 'sh', ...node];
  const child = spawn(command!, args, {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  atFileEnd(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ child, url: match[1]!, output: () => output });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}
