import path from 'node:path';
import { freePort, startProcess, waitForHttp } from './processes.js';
import { REPO_ROOT } from './service.js';
import type { Target } from './target.js';

/** bench/bare-server.ts in its own process, like the service, so both compete for CPU alike. */
export async function startBareServer(secret: string): Promise<Target> {
  const port = await freePort();
  const child = startProcess({
    name: 'bare',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO_ROOT, 'bench/bare-server.ts')],
    env: { PATH: process.env.PATH, PORT: String(port), WEBHOOK_SECRET: secret },
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
