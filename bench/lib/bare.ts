import path from 'node:path';
import { freePort, startProcess, waitForHttp } from './processes.js';
import { REPO_ROOT, startFlagsOfPackage } from './service.js';
import type { Target } from './target.js';

/**
 * A small `node:http` script of the bench in its own process, like the service, so both
 * compete for CPU alike, and with the service's Node flags; ready when its `/health` answers.
 */
export async function startBenchScript(
  name: string,
  script: string,
  env: Record<string, string>,
  cpuProfileDir?: string,
): Promise<Target> {
  const port = await freePort();
  const child = startProcess({
    name,
    command: process.execPath,
    args: [
      ...startFlagsOfPackage(),
      ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []),
      '--import',
      'tsx',
      path.join(REPO_ROOT, script),
    ],
    env: { PATH: process.env.PATH, PORT: String(port), ...env },
    cwd: REPO_ROOT,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    const readyVia = await waitForHttp(child, [`${baseUrl}/health`]);
    return { baseUrl, child, readyVia: new URL(readyVia).pathname, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/** bench/bare-server.ts: the signed-webhook floor. */
export function startBareServer(secret: string, cpuProfileDir?: string): Promise<Target> {
  const env = { WEBHOOK_SECRET: secret };
  return startBenchScript('bare', 'bench/bare-server.ts', env, cpuProfileDir);
}

/** bench/fastify-floor-server.ts: the bare baseline's work in a Fastify route, nothing more. */
export function startFastifyFloor(secret: string, cpuProfileDir?: string): Promise<Target> {
  const env = { WEBHOOK_SECRET: secret };
  return startBenchScript('fastify-floor', 'bench/fastify-floor-server.ts', env, cpuProfileDir);
}
