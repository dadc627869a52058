import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createPostgresStore } from '../../src/adapters/postgres/postgres-store.js';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Store } from '../../src/ports/store.js';

/**
 * Which real services the tests may use. Suites for a missing service are skipped with a
 * note, unless REQUIRE_SERVICES=1, where a missing service fails the run instead.
 */
const postgresUrl = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : undefined;
const redisUrl = process.env.REDIS_URL?.startsWith('redis') ? process.env.REDIS_URL : undefined;
const required = process.env.REQUIRE_SERVICES === '1';

if (required && (!postgresUrl || !redisUrl)) {
  throw new Error(
    'REQUIRE_SERVICES=1 needs DATABASE_URL=postgres://… and REDIS_URL=redis://… to be set',
  );
}

const skipped = new Set<string>();
function noteSkip(what: string) {
  if (skipped.has(what)) return;
  skipped.add(what);
  console.warn(`[tests] ${what} not set: its suites are skipped (set it, or REQUIRE_SERVICES=1)`);
}

export type StoreKind = 'sqlite' | 'postgres';

export function storeKinds(): StoreKind[] {
  if (!postgresUrl) noteSkip('DATABASE_URL=postgres://…');
  return postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
}

export function redisUrlForTests(): string | undefined {
  if (!redisUrl) noteSkip('REDIS_URL');
  return redisUrl;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${crypto.randomBytes(4).toString('hex')}`;
}

export function tempDir(prefix = 'svc-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A PostgreSQL URL scoped to a fresh schema, so parallel test files never share rows. */
export function postgresUrlWithFreshSchema(): { url: string; schema: string } {
  if (!postgresUrl) throw new Error('DATABASE_URL is not a postgres URL');
  const schema = uniqueName('t').toLowerCase();
  const url = new URL(postgresUrl);
  url.searchParams.set('schema', schema);
  return { url: url.toString(), schema };
}

export async function dropSchema(schema: string): Promise<void> {
  if (!postgresUrl) return;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export interface TestStore {
  store: Store;
  cleanup(): Promise<void>;
}

export async function makeStore(kind: StoreKind): Promise<TestStore> {
  if (kind === 'sqlite') {
    const dir = tempDir();
    const store = await createSqliteStore(path.join(dir, 'app.db'));
    return {
      store,
      async cleanup() {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const { url, schema } = postgresUrlWithFreshSchema();
  const parsed = new URL(url);
  parsed.searchParams.delete('schema');
  const store = await createPostgresStore({ url: parsed.toString(), schema });
  return {
    store,
    async cleanup() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

export interface TestRedis {
  redis: Redis;
  prefix: string;
  cleanup(): Promise<void>;
}

/** A Redis connection and a key prefix of its own; cleanup deletes the prefix's keys. */
export async function makeRedis(): Promise<TestRedis> {
  if (!redisUrl) throw new Error('REDIS_URL is not set');
  const redis = new Redis(redisUrl, { enableAutoPipelining: true });
  const prefix = `${uniqueName('t')}:`;
  return {
    redis,
    prefix,
    async cleanup() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
