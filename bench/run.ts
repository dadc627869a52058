/**
 * `npm run bench`: throughput and latency of the intake paths, each against a baseline
 * measured in the same run on the same machine. Not a test; never run in CI.
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 * BENCH_ONLY (comma-separated run ids), BENCH_CPU_PROFILE (run ids, or 1 for signals-embedded),
 * BENCH_SKIP_BUILD=1, BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_ALERTMANAGER.
 */
import crypto from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { alertmanagerBinary } from './alertmanager.js';
import { cleanupDistributed, distributedUnavailable } from './lib/distributed.js';
import { executeRun } from './lib/execute.js';
import { exitWith } from './lib/exit-with.js';
import type { LoadSettings } from './lib/load.js';
import { installExitHandlers, stopAll } from './lib/processes.js';
import type { RunOutcome } from './lib/run-spec.js';
import { buildService, REPO_ROOT } from './lib/service.js';
import { type BenchReport, compare, printReport, writeReport } from './report.js';
import { errtrackerComparisons, errtrackerRuns } from './runs/errtracker-runs.js';
import { intakeComparisons, intakeRuns } from './runs/intake-runs.js';
import { readbackComparisons, readbackRuns } from './runs/readback-runs.js';
import { sseRuns } from './runs/sse-runs.js';

const SECRET = 'bench-secret';
const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function idList(name: string): Set<string> | undefined {
  const raw = process.env[name]?.trim();
  return raw
    ? new Set(
        raw
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      )
    : undefined;
}

async function main(): Promise<number> {
  const startedAt = new Date().toISOString();
  const settings: LoadSettings = {
    seconds: positiveNumber('BENCH_SECONDS', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP_SECONDS', 2),
    connections: positiveNumber('BENCH_CONNECTIONS', 50),
  };
  const only = idList('BENCH_ONLY');
  const rawProfile = process.env.BENCH_CPU_PROFILE?.trim();
  const profiled = rawProfile === '1' ? new Set(['signals-embedded']) : idList('BENCH_CPU_PROFILE');
  const tag = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const baseDir = await mkdtemp(path.join(os.tmpdir(), `alert-intake-${tag}-`));
  const profileDir = path.join(RESULTS_DIR, 'profiles', tag);
  const notes: string[] = [];
  let usedDistributed = false;

  let cleanedUp = false;
  const cleanup = async () => {
    if (cleanedUp) return;
    cleanedUp = true;
    await stopAll();
    if (usedDistributed) notes.push(...(await cleanupDistributed(tag)));
    await rm(baseDir, { recursive: true, force: true });
  };
  installExitHandlers(cleanup);

  try {
    if (process.env.BENCH_SKIP_BUILD !== '1') buildService();
    const unavailable = await distributedUnavailable();
    if (unavailable) notes.push(`Distributed runs skipped: ${unavailable}`);
    const binary = alertmanagerBinary();
    if (!binary)
      notes.push('Alertmanager run skipped: /usr/bin/prometheus-alertmanager not found.');
    if (profiled) await mkdir(profileDir, { recursive: true });

    const context = {
      secret: SECRET,
      tag,
      totalSeconds: settings.seconds + settings.warmupSeconds,
      workDir: async (name: string) => {
        const dir = path.join(baseDir, name);
        await mkdir(dir, { recursive: true });
        return dir;
      },
      distributedUnavailable: unavailable,
      alertmanagerBinary: binary,
      cpuProfileDir: (runId: string) => (profiled?.has(runId) ? profileDir : undefined),
    };
    const specs = [
      ...intakeRuns(context),
      ...errtrackerRuns(context),
      ...readbackRuns(context),
    ].filter((spec) => !only || only.has(spec.id));
    // The SSE fan-out brings its own clients instead of autocannon (bench/runs/sse-runs.ts).
    const sseSpecs = sseRuns(context).filter((spec) => !only || only.has(spec.id));
    if (specs.length === 0 && sseSpecs.length === 0)
      throw new Error(`BENCH_ONLY matched no run: ${[...(only ?? [])].join(', ')}`);
    usedDistributed =
      !unavailable && [...specs, ...sseSpecs].some((spec) => spec.id.endsWith('-distributed'));
    if (profiled)
      notes.push('CPU profiling was on for some runs: their figures include its overhead.');

    const runs: RunOutcome[] = [];
    for (const spec of specs) runs.push(await executeRun(spec, settings));
    for (const spec of sseSpecs) runs.push(await spec.execute(settings));

    await cleanup();
    const report: BenchReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      machine: {
        node: process.version,
        cpus: os.cpus().length,
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        platform: `${os.platform()} ${os.release()}`,
      },
      settings,
      runs,
      comparisons: compare(runs, [
        ...intakeComparisons,
        ...errtrackerComparisons,
        ...readbackComparisons,
      ]),
      notes,
    };
    printReport(report);
    const latest = path.join(RESULTS_DIR, 'latest.json');
    await writeReport(report, latest);
    await writeReport(report, path.join(RESULTS_DIR, `${startedAt.replace(/[:.]/g, '-')}.json`));
    console.log(`\nWritten: ${path.relative(process.cwd(), latest)}`);
    // Targets are informational; only a run that could not be executed is a failure.
    return runs.some((run) => run.status === 'failed') ? 1 : 0;
  } finally {
    await cleanup();
  }
}

exitWith('bench', main);
