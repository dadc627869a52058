import { Redis } from 'ioredis';
import pg from 'pg';

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

/**
 * Each run gets its own schema and key prefix under one bench tag: a run must not inherit
 * the previous run's stream backlog or incidents, and cleanup needs only the tag.
 */
export function distributedNames(tag: string, runKey: string) {
  const schema = `${tag}_${runKey.replace(/[^a-z0-9_]/g, '_')}`;
  const url = new URL(DATABASE_URL);
  url.searchParams.set('schema', schema);
  return {
    schema,
    databaseUrl: url.toString(),
    redisUrl: REDIS_URL,
    redisKeyPrefix: `${tag}:${runKey}:`,
  };
}

/** Drops every schema named `<tag>_…` and deletes every Redis key starting `<tag>:`. */
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
