import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StartOptions {
  /** Warn lines this run causes on purpose: not counted as problems. */
  expected?: RegExp;
  /** Short name used to prefix the child's output, e.g. `service` or `alertmanager`. */
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface Child {
  name: string;
  pid: number;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<string>;
  hasExited(): boolean;
  /** The last lines the child wrote, for error messages. */
  outputTail(): string;
  /** How many output lines looked like warnings or errors. */
  problemLines(): number;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<string>;
}

const TAIL_LINES = 40;
// A failing service under load can log thousands of identical lines; a few are enough to see it.
const ECHO_LIMIT = 10;
const PROBLEM = /"level":(40|50|60)\b|\b(warn|error|fatal|panic)\b/i;

const live = new Set<Child>();
/** Set on Ctrl-C: the run loop may still be unwinding, and must not start anything new. */
let aborting = false;

export function startProcess(options: StartOptions): Child {
  if (aborting) throw new Error(`${options.name}: not started, the bench is stopping`);
  const proc: ChildProcess = spawn(options.command, options.args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined)
    throw new Error(`${options.name}: could not start ${options.command}`);
  const tail: string[] = [];
  let problems = 0;
  let echoed = 0;
  let ended = false;
  const onLine = (line: string) => {
    if (!line.trim()) return;
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    if (!PROBLEM.test(line) || options.expected?.test(line)) return;
    problems += 1;
    if (echoed < ECHO_LIMIT) {
      echoed += 1;
      console.error(`  [${options.name}] ${line.slice(0, 400)}`);
      if (echoed === ECHO_LIMIT) console.error(`  [${options.name}] (further lines suppressed)`);
    }
  };
  for (const stream of [proc.stdout, proc.stderr]) {
    let partial = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  const exited = new Promise<string>((resolve) => {
    proc.on('exit', (code, signal) => {
      ended = true;
      live.delete(child);
      resolve(signal ?? String(code));
    });
    proc.on('error', (error) => {
      ended = true;
      live.delete(child);
      tail.push(`spawn error: ${error.message}`);
      resolve('spawn-error');
    });
  });
  const child: Child = {
    name: options.name,
    pid: proc.pid,
    exited,
    hasExited: () => ended,
    outputTail: () => tail.join('\n'),
    problemLines: () => problems,
    async stop(graceMs = 10_000) {
      if (ended) return exited;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!ended) proc.kill('SIGKILL');
      }, graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  live.add(child);
  return child;
}

/** Stops every child still running; used on the normal path and on errors and Ctrl-C. */
export async function stopAll(graceMs = 5_000): Promise<void> {
  await Promise.all([...live].map((child) => child.stop(graceMs)));
}

let handlersInstalled = false;

/**
 * No child may outlive the bench: Ctrl-C and SIGTERM run `cleanup` (which stops children
 * gracefully), and a last synchronous SIGKILL on `exit` covers every other way out.
 */
export function installExitHandlers(cleanup: () => Promise<void>): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    aborting = true;
    console.error(`\n${signal}: stopping child processes and cleaning up…`);
    const hardStop = setTimeout(() => process.exit(130), 20_000);
    hardStop.unref();
    cleanup()
      .catch((error: Error) => console.error(`cleanup failed: ${error.message}`))
      .finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('exit', () => {
    for (const child of live) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** A port the OS considers free right now (a small race with other programs is accepted). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls the URLs in order until one answers 200; returns that URL. Fails early when the
 * child exits, with its last output, so a crash at start does not look like a timeout.
 */
export async function waitForHttp(
  child: Child,
  urls: string[],
  timeoutMs = 30_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.hasExited()) {
      throw new Error(
        `${child.name} exited (${await child.exited}) before it was ready:\n${child.outputTail()}`,
      );
    }
    for (const url of urls) {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        if (response.status === 200) return url;
        last = `${url} → ${response.status}`;
      } catch (error) {
        last = `${url} → ${(error as Error).message}`;
      }
    }
    await sleep(150);
  }
  throw new Error(
    `${child.name} not ready after ${timeoutMs} ms (${last}):\n${child.outputTail()}`,
  );
}
