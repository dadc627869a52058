import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { tempDir } from '../helpers/backends.js';
import { atFileEnd } from '../helpers/file-end.js';
import { startServerProcess } from '../helpers/server-process.js';

/**
 * What every browser test of the console shares: Debian's chromium driven by playwright-core,
 * the console built from the working tree, and the service started as `npm start` runs it.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium && process.env.REQUIRE_SERVICES === '1') {
  throw new Error(`${CHROMIUM} is missing: install the chromium package (.ci/run does)`);
}
if (!hasChromium) {
  console.warn(`console e2e skipped: no ${CHROMIUM} (install Debian's chromium package)`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/**
 * The service as `npm start` runs it, embedded, on a loopback port; `env` adds to and
 * overrides the defaults. CONSOLE_E2E_ENTRY names another entry point (one that registers
 * the console routes on a checkout whose app.ts does not yet).
 */
export async function startConsoleService(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const fullEnv = {
    DATA_DIR: tempDir('console-e2e-'),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    APP_ENV: 'test',
    SIGNAL_CONSUMER: 'false',
    ...env,
  };
  const entry = process.env.CONSOLE_E2E_ENTRY;
  if (!entry) return startServerProcess(fullEnv);
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', CONSOLE_TOKEN: '', ...fullEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  atFileEnd(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve({ url: match[1]!, child });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** The console as the working tree has it: built again when a source is newer than the build. */
export function buildConsoleIfStale(): void {
  const built = path.resolve('dist-console/index.html');
  const newest = (dir: string): number =>
    Math.max(
      ...fs.readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs;
      }),
    );
  if (fs.existsSync(built) && fs.statSync(built).mtimeMs >= newest(path.resolve('console'))) return;
  execFileSync('npm', ['run', 'build:console'], { stdio: 'inherit' });
}
