import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type CpuProbe, commandMatches } from './proc-cpu.js';

/** Defaults are the local CI services; BENCH_DATABASE_URL and BENCH_REDIS_URL point elsewhere. */
export const DATABASE_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function redisClient(): Redis {
  // Fail fast: an absent Redis must turn into a skip note, not a hang.
  return new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
}

/** Why the distributed runs cannot happen, or undefined when PostgreSQL and Redis both answer. */
export async function distributedUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    return `PostgreSQL at ${DATABASE_URL} unreachable: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = redisClient();
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return `Redis at ${REDIS_URL} unreachable: ${(error as Error).message}`;
  } finally {
    redis.disconnect();
  }
  return undefined;
}

let started = 0;

/**
 * Each start of a run (every round) gets its own schema and key prefix under one bench tag:
 * a run must not inherit an earlier round's stream backlog or incidents, and cleanup needs
 * only the tag.
 */
export function distributedNames(tag: string, runKey: string) {
  started += 1;
  const key = `${runKey}_${started}`;
  const schema = `${tag}_${key.replace(/[^a-z0-9_]/g, '_')}`;
  const url = new URL(DATABASE_URL);
  url.searchParams.set('schema', schema);
  return {
    schema,
    databaseUrl: url.toString(),
    redisUrl: REDIS_URL,
    redisKeyPrefix: `${tag}:${key}:`,
  };
}

/** Drops every schema and database named `<tag>_…` and deletes every Redis key starting `<tag>:`. */
export async function cleanupDistributed(tag: string): Promise<string[]> {
  const notes: string[] = [];
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ nspname: string }>(
      'select nspname from pg_namespace where starts_with(nspname, $1)',
      [`${tag}_`],
    );
    for (const { nspname } of rows) {
      await client.query(`DROP SCHEMA "${nspname}" CASCADE`);
    }
    notes.push(`dropped ${rows.length} PostgreSQL schema(s) ${tag}_*`);
    // The idle runs count commits in databases of their own (bench/runs/idle-runs.ts).
    const databases = await client.query<{ datname: string }>(
      'select datname from pg_database where starts_with(datname, $1)',
      [`${tag}_`],
    );
    for (const { datname } of databases.rows) {
      await client.query(`DROP DATABASE "${datname}" WITH (FORCE)`);
    }
    if (databases.rows.length) notes.push(`dropped ${databases.rows.length} database(s) ${tag}_*`);
  } catch (error) {
    notes.push(`!!! could not drop schemas ${tag}_*: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = redisClient();
  try {
    await redis.connect();
    let cursor = '0';
    let deleted = 0;
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${tag}:*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
    notes.push(`deleted ${deleted} Redis key(s) ${tag}:*`);
  } catch (error) {
    notes.push(`!!! could not delete Redis keys ${tag}:*: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
  return notes;
}

/** The postmaster: from postmaster.pid in the data directory, else the parent of our backend. */
async function postmasterPid(client: pg.Client): Promise<number> {
  try {
    const { rows } = await client.query<{ data_directory: string }>('SHOW data_directory');
    const file = path.join(rows[0]!.data_directory, 'postmaster.pid');
    return Number((await readFile(file, 'utf8')).split('\n')[0]);
  } catch {
    // Not superuser, or the file is not readable from here.
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const stat = await readFile(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  }
}

/**
 * The PostgreSQL and Redis server processes the distributed runs use, for their CPU time.
 * Only local servers can be read in /proc; the pid each server reports is checked against
 * its command line, since a server in a container reports a pid of another namespace.
 */
export async function serverCpuProbes(): Promise<{ probes: CpuProbe[]; notes: string[] }> {
  const probes: CpuProbe[] = [];
  const notes: string[] = [];
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    const pid = await postmasterPid(client);
    if (await commandMatches(pid, /postgres|postmaster/)) {
      probes.push({ name: 'postgres', pid });
      notes.push(
        `PostgreSQL CPU: postmaster ${pid} and all its processes, so whatever else this shared server does counts too.`,
      );
    } else notes.push(`PostgreSQL CPU not measured: pid ${pid} is not a local postgres process`);
  } catch (error) {
    notes.push(`PostgreSQL CPU not measured: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = redisClient();
  try {
    await redis.connect();
    const info = await redis.info('server');
    const pid = Number(/^process_id:(\d+)/m.exec(info)?.[1]);
    if (await commandMatches(pid, /redis/)) {
      probes.push({ name: 'redis', pid });
      notes.push(`Redis CPU: redis-server ${pid}, shared too.`);
    } else notes.push(`Redis CPU not measured: pid ${pid} is not a local redis process`);
  } catch (error) {
    notes.push(`Redis CPU not measured: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
  return { probes, notes };
}
