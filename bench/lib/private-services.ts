import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';
import { waitFor } from './wait-for.js';

export { freePort };

/**
 * Private PostgreSQL and Redis instances for tests and `npm run chaos`, which stop, restart
 * or freeze them: never the shared ones, which other suites use at the same time. Each picks
 * a free port; its `stop()` belongs in an afterAll or a finally.
 */

export interface PrivateRedis {
  url: string;
  port: number;
  /** Starts (again) on the same port, with no persistence. */
  start(): Promise<void>;
  /** Kills the server: connections drop and new ones are refused. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing is answered. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const exited = (c: ChildProcess) =>
    c.exitCode !== null || c.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => c.once('exit', () => resolve()));
  const instance: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      const args = [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
      ];
      child = spawn('redis-server', args, { stdio: 'ignore' });
      await waitFor(async () => ((await canConnect(port)) ? true : undefined), {
        what: `redis on ${port}`,
      });
    },
    async kill() {
      if (!child) return;
      const c = child;
      child = undefined;
      c.kill('SIGCONT');
      c.kill('SIGKILL');
      await exited(c);
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
    stop: () => instance.kill(),
  };
  await instance.start();
  return instance;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface PrivatePostgres {
  /** URL of the database `app`, trusted for the user `postgres`. */
  url: string;
  /** Runs SQL as a superuser through a connection of its own. */
  query(text: string): Promise<pg.QueryResult>;
  /** `pg_ctl stop -m fast`: every backend is terminated "due to administrator command". */
  halt(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The PostgreSQL server binaries of the newest installed major version, if any. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

/**
 * initdb + pg_ctl as the `postgres` OS user (the server refuses to run as root). `settings`
 * are extra server settings (`name=value`), e.g. `track_commit_timestamp=on` for a check that
 * orders rows by when their transactions committed.
 */
export async function startPrivatePostgres(settings: string[] = []): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-pg-'));
  const data = path.join(dir, 'data');
  fs.chmodSync(dir, 0o755);
  execFileSync('chown', ['postgres', dir]);
  const asPostgres = (command: string, args: string[]) =>
    execFileSync('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args], {
      stdio: 'pipe',
    });
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');
  const pgCtl = (...args: string[]) =>
    asPostgres('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', ...args]);
  const base = `postgres://postgres@127.0.0.1:${port}`;
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  pgCtl('start');
  await query('CREATE DATABASE app');
  let running = true;
  return {
    url: `${base}/app`,
    query,
    async halt() {
      pgCtl('stop', '-m', 'fast');
      running = false;
    },
    async start() {
      pgCtl('start');
      running = true;
    },
    async stop() {
      if (running) pgCtl('stop', '-m', 'immediate');
      running = false;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
