import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, waitForHttp } from './processes.js';
import type { Target } from './target.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SERVER_JS = path.join(REPO_ROOT, 'dist/src/server.js');

/**
 * The Node flags of `npm start` (package.json `scripts.start`, `node [flags]
 * dist/src/server.js`): the bench runs the service as its users start it, young generation
 * size included, which changes the CPU per converged alert by about a tenth. The baselines
 * get the same flags, so a flag never wins a ratio by itself. Only plain flags are taken
 * (no shell syntax, no quotes, no relative paths, which would resolve differently in the
 * service's working directory and the baselines').
 */
export function startFlags(startScript: string): string[] {
  const words = startScript.trim().split(/\s+/);
  const flags = words.slice(1, -1);
  const plain = (flag: string) => /^--?[A-Za-z][\w-]*(=[\w.,:/-]*)?$/.test(flag);
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/server.js' || !flags.every(plain)) {
    throw new Error(
      `package.json's scripts.start is not "node [--flag[=value] ...] dist/src/server.js": ${startScript}` +
        ' (bench/lib/service.ts reads its flags; change startFlags if the shape must change)',
    );
  }
  if (flags.some((flag) => /=\.{1,2}\//.test(flag))) {
    throw new Error(
      `package.json's scripts.start has a relative path in its flags: ${startScript}`,
    );
  }
  return flags;
}

let startFlagsRead: string[] | undefined;
/** `npm start`'s Node flags, given to the service and to every baseline alike. */
export function startFlagsOfPackage(): string[] {
  startFlagsRead ??= startFlags(
    JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start,
  );
  return startFlagsRead;
}

export type StoreMode =
  | { kind: 'embedded' }
  /** PostgreSQL without Redis: the SQL job queue and stream. */
  | { kind: 'postgres'; databaseUrl: string }
  | { kind: 'distributed'; databaseUrl: string; redisUrl: string; redisKeyPrefix: string };

export interface ServiceOptions {
  mode: StoreMode;
  /** Fresh per run: DATA_DIR and the process's working directory. */
  workDir: string;
  secret: string;
  /**
   * When set, the service runs with `--cpu-prof` and writes its profile here on exit, with
   * its SQL statements counted and timed beside it (`statement-times.cjs`).
   */
  cpuProfileDir?: string;
  /** Extra variables for this run (e.g. ANALYZER=openai for the SSE fan-out). */
  env?: Record<string, string>;
}

/**
 * Builds dist/ once per bench, so the numbers are for the code in the working tree. A failed
 * type check still emits JavaScript; with others editing concurrently, that is run with a warning.
 */
export function buildService(): void {
  console.log('Building the service (npm run build)…');
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  if (result.status === 0) return;
  if (!existsSync(SERVER_JS)) {
    throw new Error(`npm run build failed (exit ${result.status}) and ${SERVER_JS} is missing`);
  }
  console.error(
    `\n!!! npm run build exited with ${result.status}; benchmarking the JavaScript it emitted anyway.\n`,
  );
}

const STATEMENT_TIMES = path.join(REPO_ROOT, 'bench/lib/statement-times.cjs');

const UNUSED_CREDENTIAL = 'bench-credential-nobody-sends-0123456789';

// Only what Node needs: a developer's DATABASE_URL or REDIS_URL must not leak into a run.
const PASSED_THROUGH = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

function serviceEnv(options: ServiceOptions, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of PASSED_THROUGH) if (process.env[name]) env[name] = process.env[name];
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    WEBHOOK_SECRET: options.secret,
    ERRTRACKER_CLIENT_SECRET: options.secret,
    // Unset, each of these is a warn line at start-up (an endpoint left unauthenticated), and
    // the report would flag those as problem lines.
    // Long enough not to be warned of as guessable; no bench run sends them.
    CHAT_WEBHOOK_SECRET: UNUSED_CREDENTIAL,
    RECEIVER_TOKENS: UNUSED_CREDENTIAL,
    LOG_LEVEL: 'warn',
    APP_ENV: 'staging',
    DATA_DIR: options.workDir,
    READBACK_DIR: path.join(options.workDir, 'readbacks'),
    SIGNAL_CONSUMER: 'true',
  });
  if (options.mode.kind !== 'embedded') env.DATABASE_URL = options.mode.databaseUrl;
  if (options.mode.kind === 'distributed') {
    env.REDIS_URL = options.mode.redisUrl;
    env.REDIS_KEY_PREFIX = options.mode.redisKeyPrefix;
  }
  if (options.cpuProfileDir) env.STATEMENT_TIMES_DIR = options.cpuProfileDir;
  // bench/bounds/run.sh: the service with one cost it owes taken out (README, Upper bounds).
  if (process.env.BENCH_BOUND) env.BENCH_BOUND = process.env.BENCH_BOUND;
  Object.assign(env, options.env);
  return env;
}

/** `node [npm start's flags] dist/src/server.js` on a free loopback port, returned once it answers. */
export async function startService(options: ServiceOptions): Promise<Target> {
  const port = await freePort();
  const profileArgs = options.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`, '--require', STATEMENT_TIMES]
    : [];
  const child = startProcess({
    name: 'service',
    command: process.execPath,
    args: [...startFlagsOfPackage(), ...profileArgs, SERVER_JS],
    env: serviceEnv(options, port),
    cwd: options.workDir,
    // The bench reads the read API without a token, so CONSOLE_TOKEN stays unset on purpose.
    expected: /"variable":"CONSOLE_TOKEN"/,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    // The error-tracker health route is planned; until it exists /metrics proves the app is up.
    const readyVia = await waitForHttp(child, [
      `${baseUrl}/api/v1/webhooks/errtracker/health`,
      `${baseUrl}/metrics`,
    ]);
    return { baseUrl, child, readyVia: new URL(readyVia).pathname, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
