/**
 * `npm run soak`: a bounded, loopback-only soak of the service started as a process.
 * It measures the maximum rate of a mixed workload (signed alerts converging and new,
 * signals, reads of /api/v1/incidents) for ~15 s, then holds half that rate for
 * SOAK_SECONDS (600), sampling the service's RSS and heap every 10 s. Exit 1 on a failed
 * verdict: any error (non-2xx, 503 backpressure included, socket error or timeout) at half
 * rate, or RSS growth over the last 80% of the run of SOAK_RSS_GROWTH_MIB (64) or more.
 * Environment: SOAK_SECONDS, SOAK_MAX_SECONDS (15), SOAK_CONNECTIONS (50),
 * SOAK_RSS_GROWTH_MIB, SOAK_DISTRIBUTED=1 (DATABASE_URL and REDIS_URL from the environment,
 * with a fresh schema and key prefix, removed at the end), BENCH_SKIP_BUILD=1.
 */
import crypto from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { convergedAlertRequest, newAlertSequence, signalRequests } from './lib/bodies.js';
import { exitWith } from './lib/exit-with.js';
import { installExitHandlers, stopAll } from './lib/processes.js';
import { buildService, type StoreMode, startService } from './lib/service.js';
import type { Target } from './lib/target.js';

const SECRET = 'soak-secret';
const CONSOLE_TOKEN = 'soak-console-token';
const MIB = 1024 * 1024;
const SAMPLE_EVERY_MS = 10_000;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function loopbackOnly(name: string, raw: string): void {
  const host = new URL(raw).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host))
    throw new Error(`${name} must point at loopback for a soak, got host ${host}`);
}

interface Sample {
  atS: number;
  rssBytes: number;
  heapBytes: number | undefined;
}

interface Chunk {
  minute: number;
  requests: number;
  non2xx: number;
  backpressure503: number;
  errors: number;
  timeouts: number;
  p50: number;
  p99: number;
  statusCodes: Record<string, number>;
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

async function heapOf(baseUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5_000) });
    const text = await response.text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? ([0-9.e+]+)/m.exec(text);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The mixed workload: every connection cycles converged alert, new alert, signal, read. */
function mixedRequests(secret: string): autocannon.Request[] {
  const converged = convergedAlertRequest(secret);
  const signals = signalRequests(secret);
  const fresh = newAlertSequence(secret, 50_000);
  let signalIndex = 0;
  return [
    {
      method: 'POST',
      path: '/api/v1/webhooks/alerts',
      headers: converged.headers,
      body: converged.body,
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/alerts',
      setupRequest: (request) => {
        const signed = fresh.next();
        return { ...request, headers: { ...signed.headers }, body: signed.body };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/signals',
      setupRequest: (request) => {
        const signed = signals[signalIndex++ % signals.length]!;
        return { ...request, headers: { ...signed.headers }, body: signed.body };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/incidents?limit=20',
      headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
    },
  ];
}

function runLoad(
  baseUrl: string,
  requests: autocannon.Request[],
  seconds: number,
  connections: number,
  overallRate?: number,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: baseUrl,
        connections,
        duration: seconds,
        requests,
        timeout: 10,
        ...(overallRate ? { overallRate } : {}),
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false });
  });
}

function chunkOf(minute: number, result: autocannon.Result): Chunk {
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {}))
    statusCodes[code] = (stats as { count: number }).count;
  return {
    minute,
    requests: result.requests.total,
    non2xx: result.non2xx,
    backpressure503: statusCodes['503'] ?? 0,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statusCodes,
  };
}

async function dropDistributed(
  databaseUrl: string,
  schema: string,
  redisUrl: string,
  prefix: string,
) {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } catch (error) {
    console.error(`!!! could not drop schema ${schema}: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } catch (error) {
    console.error(`!!! could not delete Redis keys ${prefix}*: ${(error as Error).message}`);
  } finally {
    redis.disconnect();
  }
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;

async function main(): Promise<number> {
  const soakSeconds = positiveNumber('SOAK_SECONDS', 600);
  const maxSeconds = positiveNumber('SOAK_MAX_SECONDS', 15);
  const connections = positiveNumber('SOAK_CONNECTIONS', 50);
  const growthBoundMiB = positiveNumber('SOAK_RSS_GROWTH_MIB', 64);
  const tag = `soak_${crypto.randomBytes(4).toString('hex')}`;
  const workDir = await mkdtemp(path.join(os.tmpdir(), `alert-intake-${tag}-`));

  let mode: StoreMode = { kind: 'embedded' };
  let distributedCleanup: (() => Promise<void>) | undefined;
  if (process.env.SOAK_DISTRIBUTED === '1') {
    const databaseUrl = process.env.DATABASE_URL;
    const redisUrl = process.env.REDIS_URL;
    if (!databaseUrl || !redisUrl)
      throw new Error('SOAK_DISTRIBUTED=1 needs DATABASE_URL and REDIS_URL in the environment');
    loopbackOnly('DATABASE_URL', databaseUrl);
    loopbackOnly('REDIS_URL', redisUrl);
    const url = new URL(databaseUrl);
    url.searchParams.set('schema', tag);
    const prefix = `${tag}:`;
    mode = {
      kind: 'distributed',
      databaseUrl: url.toString(),
      redisUrl,
      redisKeyPrefix: prefix,
    };
    distributedCleanup = () => dropDistributed(databaseUrl, tag, redisUrl, prefix);
  }

  let target: Target | undefined;
  let cleanedUp = false;
  const cleanup = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    await stopAll();
    await distributedCleanup?.();
    await rm(workDir, { recursive: true, force: true });
  };
  installExitHandlers(cleanup);

  try {
    if (process.env.BENCH_SKIP_BUILD !== '1') buildService();
    target = await startService({
      mode,
      workDir,
      secret: SECRET,
      env: { CONSOLE_TOKEN, CHAT_WEBHOOK_SECRET: 'soak-chat-secret' },
    });
    const { baseUrl } = target;
    const pid = target.child.pid;
    console.log(`Soak (${mode.kind}) against ${baseUrl}, service pid ${pid}`);

    const requests = mixedRequests(SECRET);
    // One pass by fetch, so a mis-signed or unauthorised workload stops before any load.
    for (const request of requests) {
      const setup = request.setupRequest as
        | ((request: autocannon.Request, context: object) => autocannon.Request)
        | undefined;
      const built = setup ? setup(request, {}) : request;
      const response = await fetch(baseUrl + built.path, {
        method: built.method,
        headers: built.headers as Record<string, string>,
        body: built.method === 'GET' ? undefined : (built.body as string),
      });
      const text = await response.text();
      if (response.status !== 200)
        throw new Error(
          `${built.method} ${built.path} → ${response.status}: ${text.slice(0, 300)}`,
        );
    }

    console.log(`Measuring the maximum rate for ${maxSeconds} s (${connections} connections)…`);
    const max = await runLoad(baseUrl, requests, maxSeconds, connections);
    const maxRate = max.requests.average;
    const maxChunk = chunkOf(0, max);
    console.log(
      `  max: ${maxRate.toFixed(0)} req/s mean, p50 ${max.latency.p50} ms, p99 ${max.latency.p99} ms, ` +
        `non-2xx ${max.non2xx} (503: ${maxChunk.backpressure503}), errors ${max.errors}`,
    );
    const rate = Math.max(1, Math.floor(maxRate / 2));
    // Let a backlog the maximum left behind drain before the measured part begins.
    await sleep(5_000);

    console.log(`Holding ${rate} req/s for ${soakSeconds} s, sampling every 10 s…`);
    const samples: Sample[] = [];
    const startedAt = performance.now();
    const sample = async () => {
      samples.push({
        atS: (performance.now() - startedAt) / 1000,
        rssBytes: await rssOf(pid),
        heapBytes: await heapOf(baseUrl),
      });
    };
    await sample();
    const sampler = setInterval(() => void sample().catch(() => undefined), SAMPLE_EVERY_MS);
    const chunks: Chunk[] = [];
    try {
      for (let done = 0, minute = 1; done < soakSeconds; minute += 1) {
        const seconds = Math.min(60, soakSeconds - done);
        const result = await runLoad(baseUrl, requests, seconds, connections, rate);
        chunks.push(chunkOf(minute, result));
        done += seconds;
        if (target.child.hasExited()) throw new Error(`the service exited during the soak`);
      }
    } finally {
      clearInterval(sampler);
    }
    // The sampler may have just taken the last mark.
    if (performance.now() - startedAt - (samples.at(-1)?.atS ?? 0) * 1000 > 2_000) await sample();

    // Report.
    const total = chunks.reduce((sum, c) => sum + c.requests, 0);
    const non2xx = chunks.reduce((sum, c) => sum + c.non2xx, 0);
    const backpressure = chunks.reduce((sum, c) => sum + c.backpressure503, 0);
    const socketErrors = chunks.reduce((sum, c) => sum + c.errors, 0);
    const timeouts = chunks.reduce((sum, c) => sum + c.timeouts, 0);
    const errors = non2xx + socketErrors;
    console.log('\nminute  requests  req/s  non-2xx  503  errors  p50 ms  p99 ms');
    for (const c of chunks) {
      const seconds = Math.min(60, soakSeconds - (c.minute - 1) * 60);
      console.log(
        `${String(c.minute).padStart(6)}  ${String(c.requests).padStart(8)}  ${(
          c.requests / seconds
        )
          .toFixed(0)
          .padStart(
            5,
          )}  ${String(c.non2xx).padStart(7)}  ${String(c.backpressure503).padStart(3)}  ${String(
          c.errors,
        ).padStart(6)}  ${String(c.p50).padStart(6)}  ${String(c.p99).padStart(6)}`,
      );
      const codes = Object.entries(c.statusCodes).filter(([code]) => !code.startsWith('2'));
      if (codes.length > 0)
        console.log(`        non-2xx by status: ${JSON.stringify(Object.fromEntries(codes))}`);
    }
    console.log('\n     at s     RSS        heap used');
    const marks = samples.filter(
      (s, i) => i === 0 || i === samples.length - 1 || Math.round(s.atS) % 60 < 10,
    );
    for (const s of marks) {
      console.log(
        `${s.atS.toFixed(0).padStart(9)}  ${mib(s.rssBytes).padStart(10)}  ${
          s.heapBytes === undefined ? '?' : mib(s.heapBytes)
        }`,
      );
    }
    const from = samples.find((s) => s.atS >= soakSeconds * 0.2) ?? samples[0]!;
    const end = samples[samples.length - 1]!;
    const growth = end.rssBytes - from.rssBytes;
    const growthPct = (growth / from.rssBytes) * 100;
    const peak = Math.max(...samples.map((s) => s.rssBytes));
    const logProblems = target.child.problemLines();
    console.log(
      `\nmax rate ${maxRate.toFixed(0)} req/s; asked for ${rate} req/s for ${soakSeconds} s, ` +
        `achieved ${(total / soakSeconds).toFixed(0)} req/s` +
        (total / soakSeconds < rate * 0.9
          ? ' (!!! below 90% of the target: the service or the machine could not keep up)'
          : '') +
        `\nrequests ${total}, errors ${errors} (non-2xx ${non2xx}, of which 503 ${backpressure}; ` +
        `socket errors ${socketErrors}, timeouts ${timeouts})` +
        `\nRSS start ${mib(samples[0]!.rssBytes)}, at ${from.atS.toFixed(0)} s ${mib(from.rssBytes)}, ` +
        `end ${mib(end.rssBytes)}, peak ${mib(peak)}; growth over the last 80% ${mib(growth)} ` +
        `(${growthPct.toFixed(1)}%, bound ${growthBoundMiB} MiB)` +
        `\nservice warn/error log lines: ${logProblems}`,
    );
    const failures: string[] = [];
    if (errors > 0) failures.push(`${errors} error(s) at half rate`);
    if (growth >= growthBoundMiB * MIB) failures.push(`RSS grew ${mib(growth)}`);
    if (total === 0) failures.push('no request completed');
    console.log(failures.length === 0 ? 'verdict: PASS' : `verdict: FAIL (${failures.join('; ')})`);
    return failures.length === 0 ? 0 : 1;
  } finally {
    await cleanup();
  }
}

exitWith('soak', main);
