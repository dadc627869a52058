import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { serviceEntry } from '../helpers/service-entry.js';

const dataDir = tempDir();
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves with the first stdout line whose JSON message starts with `started:`. */
function startupLine(server: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no start-up line in: ${output}`)), timeoutMs);
    server.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((text) => text.includes('"msg":"started: '));
      if (line === undefined) return;
      clearTimeout(timer);
      resolve(line);
    });
    server.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    server.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

describe('the real entry point, stdout not a terminal', () => {
  it('logs one JSON start-up line naming the mode, database, address and unset secrets', async () => {
    const port = await freePort();
    // Built from nothing, so no DATABASE_URL, REDIS_URL or secret of the test run leaks in.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? dataDir,
      APP_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: String(port),
    };
    child = spawn(process.execPath, serviceEntry('server'), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const line = await startupLine(child, 20_000);
    const { startup, msg } = JSON.parse(line);
    const address = `http://127.0.0.1:${port}`;
    expect(startup).toMatchObject({
      mode: 'development',
      database: `SQLite ${path.join(dataDir, 'app.db')}`,
      listen: address,
      console: expect.stringContaining(`${address}/console/`),
      docs: `${address}/docs`,
    });
    const unset = startup.unset.flatMap((entry: { variables: string[] }) => entry.variables);
    expect(unset).toContain('WEBHOOK_SECRET');
    expect(msg).toContain('WEBHOOK_SECRET');
    expect(msg).toContain(address);

    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
