import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadPlan } from './lib/load.js';
import { freePort, startProcess, waitForHttp } from './lib/processes.js';
import { unsignedJson } from './lib/signing.js';
import type { Target } from './lib/target.js';

/** The Debian package's path (`apt-get install prometheus-alertmanager`); BENCH_ALERTMANAGER overrides. */
export function alertmanagerBinary(): string | undefined {
  const candidates = [process.env.BENCH_ALERTMANAGER, '/usr/bin/prometheus-alertmanager'];
  return candidates.find((file): file is string => Boolean(file && existsSync(file)));
}

// One receiver with no integrations: Alertmanager stores, dedups and groups, but sends nothing.
const CONFIG = `route:
  receiver: 'null'
receivers:
  - name: 'null'
`;

/**
 * Alertmanager with a throwaway storage and the given config (by default one receiver that
 * sends nothing); clustering off, as a single node.
 */
export async function startAlertmanager(
  binary: string,
  workDir: string,
  config = CONFIG,
): Promise<Target> {
  await mkdir(path.join(workDir, 'data'), { recursive: true });
  const configFile = path.join(workDir, 'alertmanager.yml');
  await writeFile(configFile, config);
  const port = await freePort();
  const child = startProcess({
    name: 'alertmanager',
    command: binary,
    args: [
      `--config.file=${configFile}`,
      `--storage.path=${path.join(workDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    env: { PATH: process.env.PATH },
    cwd: workDir,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    const readyVia = await waitForHttp(child, [`${baseUrl}/-/ready`]);
    return { baseUrl, child, readyVia: new URL(readyVia).pathname, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/** The same alert again and again: Alertmanager's own dedup path, the peer of our converged path. */
export function alertmanagerPlan(): LoadPlan {
  const alert = {
    labels: { alertname: 'KubePodCrashLooping', namespace: 'bench', pod: 'api-1' },
    annotations: { summary: 'x' },
  };
  return {
    method: 'POST',
    path: '/api/v2/alerts',
    source: { kind: 'rotate', requests: [unsignedJson([alert])] },
  };
}
