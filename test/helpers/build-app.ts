import crypto from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { ResilienceOptions } from '../../src/adapters/analyzers/resilient-analyzer.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Analyzer } from '../../src/ports/analyzer.js';
import type { Clock } from '../../src/ports/clock.js';
import {
  dropSchema,
  postgresUrlWithFreshSchema,
  redisUrlForTests,
  storeKinds,
  tempDir,
  uniqueName,
} from './backends.js';
import { atFileEnd } from './file-end.js';

/** `embedded`: SQLite and in-process transports; `distributed`: PostgreSQL and Redis. */
export type Backend = 'embedded' | 'distributed';

export function backends(): Backend[] {
  const distributed = storeKinds().includes('postgres') && redisUrlForTests() !== undefined;
  return distributed ? ['embedded', 'distributed'] : ['embedded'];
}

/**
 * The backends a suite that races on PostgreSQL's row locks runs on: only the distributed
 * one, and a suite of it skipped (not missing) where PostgreSQL and Redis are not configured.
 */
export const DISTRIBUTED_ONLY = ['distributed'] as const;
export const distributedAvailable = () => backends().includes('distributed');

export class TestClock implements Clock {
  constructor(public ms = Date.parse('2026-11-22T01:02:03.000Z')) {}
  now() {
    return this.ms;
  }
  advance(ms: number) {
    this.ms += ms;
  }
}

export interface TestAppOptions {
  backend?: Backend;
  env?: Record<string, string>;
  clock?: Clock;
  analyzer?: Analyzer;
  resilience?: ResilienceOptions;
  /** The leases' time to live (chat polling takeover tests). */
  leaseTtlMs?: number;
  /** Reuse the state of an earlier app (same data dir / schema / prefix): a restart. */
  reuse?: TestApp;
}

export interface TestApp {
  app: FastifyInstance;
  env: Record<string, string>;
  backend: Backend;
  close(): Promise<void>;
}

function freshEnv(backend: Backend): Record<string, string> {
  const dataDir = tempDir();
  atFileEnd(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { DATA_DIR: dataDir, APP_ENV: 'test', LOG_LEVEL: 'silent' };
  if (backend === 'distributed') {
    const { url, schema } = postgresUrlWithFreshSchema();
    atFileEnd(() => dropSchema(schema));
    env.DATABASE_URL = url;
    env.REDIS_URL = redisUrlForTests()!;
    env.REDIS_KEY_PREFIX = `${uniqueName('t')}:`;
  }
  return env;
}

/** Builds the whole app the way `npm start` does, from environment variables. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const backend = options.reuse?.backend ?? options.backend ?? 'embedded';
  const base = options.reuse?.env ?? freshEnv(backend);
  const env = { ...base, ...options.env };
  const app = await buildApp(loadConfig(env), {
    clock: options.clock,
    analyzer: options.analyzer,
    resilience: options.resilience,
    leaseTtlMs: options.leaseTtlMs,
  });
  await app.ready();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  atFileEnd(close);
  return { app, env, backend, close };
}

export function signBody(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Injects a JSON POST signed with `secret` (unsigned when secret is undefined). */
export function postSigned(
  app: FastifyInstance,
  url: string,
  payload: unknown,
  secret?: string,
  headers: Record<string, string> = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app.inject({
    method: 'POST',
    url,
    payload: body,
    headers: {
      'content-type': 'application/json',
      ...(secret ? { 'x-signature-256': signBody(secret, body) } : {}),
      ...headers,
    },
  });
}
