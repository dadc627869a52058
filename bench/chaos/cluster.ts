import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from '../lib/private-services.js';
import { type Child, freePort, startProcess, waitForHttp } from '../lib/processes.js';
import { REPO_ROOT } from '../lib/service.js';

export const CHAOS_SECRET = 'chaos-webhook-secret';
export const CHAOS_TRACKER_SECRET = 'chaos-tracker-secret';
export const CHAOS_CHAT_WEBHOOK_SECRET = 'chaos-chat-webhook-secret';

/** One service process; `url` changes when it is started again. */
export interface Replica {
  name: string;
  url: string;
  child: Child;
}

export interface ReplicaOptions {
  /** Extra variables, e.g. the chat and tracker peers. */
  env?: Record<string, string>;
  /** Embedded mode: no DATABASE_URL or REDIS_URL, the SQLite file under this directory. */
  dataDir?: string;
}

// Only what Node needs: a developer's DATABASE_URL or REDIS_URL must not leak into a run.
const PASSED_THROUGH = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/**
 * `src/server.ts` as a process of its own (through tsx, so no build is needed and CI's short
 * run tests the working tree), on a free loopback port, returned once `/readyz` answers 200.
 */
export async function startReplica(
  name: string,
  backends: { databaseUrl?: string; redisUrl?: string },
  options: ReplicaOptions = {},
): Promise<Replica> {
  const port = await freePort();
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-replica-'));
  const env: NodeJS.ProcessEnv = {};
  for (const variable of PASSED_THROUGH) {
    if (process.env[variable]) env[variable] = process.env[variable];
  }
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    APP_ENV: 'staging',
    LOG_LEVEL: 'warn',
    WEBHOOK_SECRET: CHAOS_SECRET,
    CHAT_WEBHOOK_SECRET: CHAOS_CHAT_WEBHOOK_SECRET,
    ERRTRACKER_CLIENT_SECRET: CHAOS_TRACKER_SECRET,
    DATA_DIR: dataDir,
    READBACK_DIR: path.join(dataDir, 'readbacks'),
    ...(backends.databaseUrl ? { DATABASE_URL: backends.databaseUrl } : {}),
    ...(backends.redisUrl ? { REDIS_URL: backends.redisUrl } : {}),
    ...options.env,
  });
  const child = startProcess({
    name,
    command: process.execPath,
    args: ['--import', 'tsx', path.join(REPO_ROOT, 'src/server.ts')],
    env,
    cwd: REPO_ROOT,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(child, [`${url}/api/v1/readyz`], 60_000);
  return { name, url, child };
}

/** SIGKILL: no shutdown hook runs, in-flight requests and jobs are cut where they are. */
export async function killHard(replica: Replica): Promise<void> {
  try {
    process.kill(replica.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  await replica.child.exited;
}

/** Three replicas (or `count`) on one private PostgreSQL and one private Redis. */
export interface Cluster {
  postgres: PrivatePostgres;
  redis: PrivateRedis;
  replicas: Replica[];
  /** Starts replica `index` again (after a kill), on a new port. */
  restart(index: number): Promise<Replica>;
  /** A query against the replicas' database. */
  sql<Row extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<Row[]>;
  close(): Promise<void>;
}

export interface ClusterOptions extends ReplicaOptions {
  /** Extra PostgreSQL server settings (`name=value`). */
  postgresSettings?: string[];
}

export async function startCluster(
  count: number,
  clusterOptions: ClusterOptions = {},
): Promise<Cluster> {
  const { postgresSettings, ...options } = clusterOptions;
  const [postgres, redis] = await Promise.all([
    startPrivatePostgres(postgresSettings),
    startPrivateRedis(),
  ]);
  const backends = { databaseUrl: postgres.url, redisUrl: redis.url };
  const pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // The pool must survive the PostgreSQL restart scenario.
  pool.on('error', () => {});
  const replicas: Replica[] = [];
  try {
    // The first one migrates; the others then start side by side.
    replicas.push(await startReplica('replica-1', backends, options));
    const others = await Promise.all(
      Array.from({ length: count - 1 }, (_, i) =>
        startReplica(`replica-${i + 2}`, backends, options),
      ),
    );
    replicas.push(...others);
  } catch (error) {
    await Promise.all(replicas.map((replica) => replica.child.stop(2_000)));
    await pool.end();
    await Promise.all([postgres.stop(), redis.stop()]);
    throw error;
  }
  return {
    postgres,
    redis,
    replicas,
    async restart(index) {
      const replica = await startReplica(`replica-${index + 1}`, backends, options);
      replicas[index] = replica;
      return replica;
    },
    async sql<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      return (await pool.query<Row>(text, values)).rows;
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.child.stop(5_000)));
      await pool.end().catch(() => {});
      await Promise.all([postgres.stop(), redis.stop()]);
    },
  };
}
