/**
 * Measures what 10,000 silences at their limits cost a replica (CONTRACT, Under races,
 * crashes and abuse: "fit in 256 MiB of heap, load at start within 10 s and still cost a
 * converged alert no more than a fifth of its throughput"). Not a test: run it with
 *   node --expose-gc --import tsx bench/silence-load.ts \
 *     <sqlite|postgres> <indexed|regex-only> [count, 10000; 0 for the baseline]
 * (DATABASE_URL=postgres://… for postgres). It prints one JSON line of figures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { insertSilence } from '../src/features/silences/silence-records.js';

const [kind = 'sqlite', shape = 'indexed', count = '10000'] = process.argv.slice(2);
const COUNT = Number(count);
const MAX_BYTES = 8192;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heapMiB = () => {
  gc();
  gc();
  return Math.round((process.memoryUsage().heapUsed / 1024 / 1024) * 10) / 10;
};

/**
 * A regex of 1,024 characters compiling to 1,600 or so RE2 instructions (64,000 of the
 * 65,536 bytes allowed), different in every silence.
 */
function patternAtLimits(silence: number, matcher: number): string {
  const head = `s${silence}m${matcher}-[a-z]{1,300}`;
  return head + 'q'.repeat(1024 - head.length);
}

/** Matchers filling SILENCE_MAX_BYTES: an exact one first when `indexed`, then regexes. */
function matchersAtLimits(silence: number) {
  const exact =
    shape === 'indexed'
      ? [{ name: 'alertname', value: `Silenced${silence}`, isRegex: false, isEqual: true }]
      : [];
  const regexes = Array.from({ length: 7 - exact.length }, (_, matcher) => ({
    name: `label${matcher}`,
    value: patternAtLimits(silence, matcher),
    isRegex: true,
    isEqual: true,
  }));
  return [...exact, ...regexes];
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'silence-load-'));
const env: Record<string, string> = {
  DATA_DIR: dataDir,
  APP_ENV: 'test',
  LOG_LEVEL: 'silent',
  SIGNAL_CONSUMER: 'false',
};
if (kind === 'postgres') {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.searchParams.set('schema', `silence_load_${process.pid}`);
  env.DATABASE_URL = url.toString();
}

const first = await buildApp(loadConfig(env));
await first.ready();
const now = Date.now();
let bytes = 0;
for (let start = 0; start < COUNT; start += 500) {
  await first.services.store.withLock('silences:count', async (tx) => {
    for (let silence = start; silence < Math.min(start + 500, COUNT); silence++) {
      const body = {
        matchers: matchersAtLimits(silence),
        startsAt: new Date(now).toISOString(),
        endsAt: new Date(now + 24 * 60 * 60 * 1000).toISOString(),
        createdBy: 'load',
        comment: '',
      };
      // The comment fills the silence up to SILENCE_MAX_BYTES as the API measures it.
      body.comment = 'c'.repeat(MAX_BYTES - Buffer.byteLength(JSON.stringify(body)));
      bytes = Math.max(bytes, Buffer.byteLength(JSON.stringify(body)));
      await insertSilence(tx, `load-${silence}`, {
        ...body,
        startsAt: now,
        endsAt: now + 24 * 60 * 60 * 1000,
        updatedAt: now,
      });
    }
  });
}
await first.close();

const before = heapMiB();
const started = performance.now();
const app = await buildApp(loadConfig(env));
await app.ready();
const startMs = Math.round(performance.now() - started);
const loaded = heapMiB();

async function alertsPerSecond(alertName: string, count: number): Promise<number> {
  const alert = {
    alert_name: alertName,
    severity: 'warning',
    source: 'prometheus',
    target_resource: 'checkout-0',
    namespace: 'shop',
    message: 'converging',
    labels: { label0: 'nomatch', label1: 'nomatch' },
  };
  const at = performance.now();
  for (let i = 0; i < count; i++) {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks/alerts',
      payload: alert,
    });
    if (answer.statusCode !== 200) throw new Error(answer.body);
  }
  return Math.round(count / ((performance.now() - at) / 1000));
}

// The first alert of a label set compiles what it must check; the converged ones that follow
// answer from remembered verdicts.
const firstAt = performance.now();
await alertsPerSecond('Converging', 1);
const firstAlertMs = Math.round(performance.now() - firstAt);
const converged = await alertsPerSecond('Converging', 2000);
const afterAlerts = heapMiB();
await app.close();

console.log(
  JSON.stringify({
    kind,
    shape,
    silences: COUNT,
    largestSilenceBytes: bytes,
    heapBeforeStartMiB: before,
    startMs,
    heapAfterLoadMiB: loaded,
    firstAlertMs,
    convergedAlertsPerSecond: converged,
    heapAfterAlertsMiB: afterAlerts,
  }),
);
fs.rmSync(dataDir, { recursive: true, force: true });
if (kind === 'postgres') {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists "silence_load_${process.pid}" cascade`);
  await client.end();
}
process.exit(0);
