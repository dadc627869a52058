import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { unsetSecrets } from '../../src/observability/unset-secrets.js';
import { tempDir } from '../helpers/backends.js';
import { serviceEntry } from '../helpers/service-entry.js';
import { waitFor } from '../helpers/wait-for.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface LogLine {
  level: number;
  msg: string;
  variable?: string;
}

/**
 * `src/server.ts` as a process, stdout not a terminal (JSON lines), built from nothing but
 * `env`, so no secret of the test run leaks in. Resolves once it answers, with its log lines.
 */
async function startService(env: Record<string, string>) {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const port = await freePort();
  const child = spawn(process.execPath, serviceEntry('server'), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dataDir,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let exited: number | null | undefined;
  child.on('exit', (code) => {
    exited = code;
  });
  await waitFor(
    async () => {
      if (exited !== undefined) throw new Error(`server exited with ${exited}: ${output}`);
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/livez`).catch(() => undefined);
      return answer?.ok ? true : undefined;
    },
    { what: 'the service to answer', timeoutMs: 30_000, intervalMs: 100 },
  );
  const lines = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  return { child, lines };
}

const warned = (lines: LogLine[]) =>
  lines.filter((line) => line.msg.includes(' is unset: ')).map((line) => line.variable);

/** CONTRACT, Operator console: "each unset secret that leaves an endpoint unauthenticated". */
const OPEN_OUTSIDE_PROD = [
  'WEBHOOK_SECRET',
  'RECEIVER_TOKENS',
  'ERRTRACKER_CLIENT_SECRET',
  'CHAT_WEBHOOK_SECRET',
  'CONSOLE_TOKEN',
];

describe('unset secrets that leave an endpoint unauthenticated, at LOG_LEVEL=warn', () => {
  it('logs one warn line each, naming the variable, outside prod', async () => {
    const { lines } = await startService({ APP_ENV: 'development' });
    const seen = await waitFor(
      async () => {
        const names = warned(lines());
        return names.length >= OPEN_OUTSIDE_PROD.length ? lines() : undefined;
      },
      { what: 'the warn lines' },
    );
    const warnings = seen.filter((line) => line.msg.includes(' is unset: '));
    expect(warnings.map((line) => line.variable).sort()).toEqual([...OPEN_OUTSIDE_PROD].sort());
    for (const line of warnings) {
      expect(line.level).toBe(40);
      expect(line.msg.startsWith(`${line.variable} is unset: `)).toBe(true);
    }
    expect(warnings.find((line) => line.variable === 'WEBHOOK_SECRET')?.msg).toBe(
      'WEBHOOK_SECRET is unset: signatures on /api/v1/webhooks/alerts and /api/v1/webhooks/signals are not checked: anyone who can reach the port can send alerts and signals',
    );
    // The summary is an info line: not shown at this level, the warnings are.
    expect(seen.filter((line) => line.level < 40)).toEqual([]);
  });

  it('in prod, where the webhooks refuse without their secrets, warns of CONSOLE_TOKEN only', async () => {
    const { lines } = await startService({ APP_ENV: 'prod' });
    await waitFor(async () => (warned(lines()).length > 0 ? true : undefined), {
      what: 'the warn line',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const warnings = lines().filter((line) => line.msg.includes(' is unset: '));
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        variable: 'CONSOLE_TOKEN',
        msg: 'CONSOLE_TOKEN is unset: the read API answers 403, so the console shows no data; POST /api/v1/agents/analyze, the POST readbacks and DELETE /api/v1/heartbeats/{name} are open to anyone who can reach the port',
      }),
    ]);
  });

  it('says nothing of the kind when every such secret is set', async () => {
    const secrets = {
      WEBHOOK_SECRET: 'whsec-warn-lines-0123456789',
      RECEIVER_TOKENS: 'receiver-warn-lines-0123456789',
      ERRTRACKER_CLIENT_SECRET: 'trk-warn-lines-0123456789',
      CHAT_WEBHOOK_SECRET: 'chat-warn-lines-0123456789',
      CONSOLE_TOKEN: 'console-warn-lines-0123456789',
    };
    const { lines } = await startService({ APP_ENV: 'development', ...secrets });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(warned(lines())).toEqual([]);
    const text = JSON.stringify(lines());
    for (const value of Object.values(secrets)) expect(text).not.toContain(value);
  });
});

describe('which unset secrets leave an endpoint unauthenticated', () => {
  it.each([
    ['development', OPEN_OUTSIDE_PROD],
    ['staging', OPEN_OUTSIDE_PROD],
    ['test', OPEN_OUTSIDE_PROD],
    ['prod', ['CONSOLE_TOKEN']],
  ])('in %s: %j', (appEnv, expected) => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const entries = unsetSecrets(loadConfig({ DATA_DIR: dataDir, APP_ENV: appEnv }, dataDir));
    const open = entries.filter((entry) => entry.unauthenticated);
    expect(open.flatMap((entry) => entry.variables).sort()).toEqual([...expected].sort());
    // Operator keys and the integrations close or switch off something; they open nothing.
    const closed = entries.filter((entry) => !entry.unauthenticated);
    expect(closed.flatMap((entry) => entry.variables)).toContain('OPERATOR_KEYS');
  });

  it('a rotation key alone still checks signatures: WEBHOOK_SECRET_PREVIOUS closes it', () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const config = loadConfig(
      { DATA_DIR: dataDir, APP_ENV: 'development', WEBHOOK_SECRET_PREVIOUS: 'previous-key-0123' },
      dataDir,
    );
    const open = unsetSecrets(config).filter((entry) => entry.unauthenticated);
    expect(open.flatMap((entry) => entry.variables)).not.toContain('WEBHOOK_SECRET');
  });
});
