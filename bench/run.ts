/**
 * `npm run bench`: throughput and latency of the intake paths, each against a baseline
 * measured in the same run on the same machine. Not a test; never run in CI.
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50),
 * BENCH_ROUNDS (3), BENCH_ONLY (comma-separated run ids; bare and fastify-floor always run),
 * BENCH_CPU_PROFILE (run ids, or 1 for signals-embedded; an unknown id in either stops the
 * bench before it builds), BENCH_SKIP_BUILD=1,
 * BENCH_DATABASE_URL, BENCH_REDIS_URL, BENCH_ALERTMANAGER.
 */
import crypto from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { alertmanagerBinary } from './alertmanager.js';
import { checkLatency, compare } from './lib/compare.js';
import { cleanupDistributed, distributedUnavailable, serverCpuProbes } from './lib/distributed.js';
import { exitWith } from './lib/exit-with.js';
import type { LoadSettings } from './lib/load.js';
import type { CpuProbe } from './lib/proc-cpu.js';
import { installExitHandlers, stopAll } from './lib/processes.js';
import { executeRounds } from './lib/rounds.js';
import type { RunOutcome } from './lib/run-spec.js';
import { buildService, REPO_ROOT } from './lib/service.js';
import { type BenchReport, printReport, writeReport } from './report.js';
import { chatStormRuns, chatStormVerdicts } from './runs/chat-storm-runs.js';
import { errtrackerComparisons, errtrackerRuns } from './runs/errtracker-runs.js';
import { fleetRuns } from './runs/fleet-runs.js';
import { idleRuns, idleVerdicts } from './runs/idle-runs.js';
import { intakeComparisons, intakeLatencyTargets } from './runs/intake-comparisons.js';
import { intakeRuns } from './runs/intake-runs.js';
import { readbackComparisons, readbackRuns } from './runs/readback-runs.js';
import { silenceComparisons, silenceRuns } from './runs/silence-runs.js';
import { sseLatencyTargets, sseRuns } from './runs/sse-runs.js';
import { stormRuns, stormVerdicts } from './runs/storm-runs.js';
import { sustainedSignalRuns } from './runs/sustained-runs.js';

const SECRET = 'bench-secret';
const RESULTS_DIR = path.join(REPO_ROOT, 'bench/results');
/** The baselines every ratio leans on: run even when BENCH_ONLY leaves them out. */
const ALWAYS_RUN = new Set(['bare', 'fastify-floor']);

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

/**
 * A mistyped run id would otherwise be skipped in silence, and the run it meant along with it
 * (or, in BENCH_CPU_PROFILE, its profile).
 */
function refuseUnknownIds(known: Set<string>, lists: Record<string, Set<string> | undefined>) {
  for (const [name, ids] of Object.entries(lists)) {
    if (ids?.size === 0) throw new Error(`${name} is set but names no run id`);
    const unknown = [...(ids ?? [])].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new Error(
        `${name} names no run: ${unknown.join(', ')}. Run ids: ${[...known].join(', ')}`,
      );
    }
  }
}

async function main(): Promise<number> {
  const startedAt = new Date().toISOString();
  const settings: LoadSettings = {
    seconds: positiveNumber('BENCH_SECONDS', 10),
    warmupSeconds: positiveNumber('BENCH_WARMUP_SECONDS', 2),
    connections: positiveNumber('BENCH_CONNECTIONS', 50),
  };
  const rounds = Math.round(positiveNumber('BENCH_ROUNDS', 3));
  const only = idList('BENCH_ONLY');
  const selected = (spec: { id: string }) => !only || only.has(spec.id) || ALWAYS_RUN.has(spec.id);
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
    const unavailable = await distributedUnavailable();
    if (unavailable) notes.push(`Distributed runs skipped: ${unavailable}`);
    const binary = alertmanagerBinary();
    if (!binary)
      notes.push('Alertmanager run skipped: /usr/bin/prometheus-alertmanager not found.');

    const context = {
      secret: SECRET,
      tag,
      totalSeconds: settings.seconds + settings.warmupSeconds,
      // A fresh directory on every call: the next round must not find this round's SQLite.
      workDir: (name: string) => mkdtemp(path.join(baseDir, `${name}-`)),
      distributedUnavailable: unavailable,
      alertmanagerBinary: binary,
      cpuProfileDir: (runId: string) => (profiled?.has(runId) ? profileDir : undefined),
    };
    const autocannonRuns = [
      ...intakeRuns(context),
      ...silenceRuns(context),
      ...errtrackerRuns(context),
      ...readbackRuns(context),
    ];
    // Runs that bring their own load instead of autocannon's closed loop: the SSE fan-out,
    // the sustained signal rate search and the storm.
    const sseAll = sseRuns(context);
    const ownLoadAll = [
      ...sustainedSignalRuns(context),
      ...stormRuns(context),
      ...chatStormRuns(context),
      ...idleRuns(context),
      ...fleetRuns(context),
    ];
    refuseUnknownIds(
      new Set([...autocannonRuns, ...sseAll, ...ownLoadAll].map((spec) => spec.id)),
      { BENCH_ONLY: only, BENCH_CPU_PROFILE: profiled },
    );
    if (process.env.BENCH_SKIP_BUILD !== '1') buildService();
    if (profiled) await mkdir(profileDir, { recursive: true });
    const specs = autocannonRuns.filter(selected);
    const sseSpecs = sseAll.filter(selected);
    const ownLoadSpecs = ownLoadAll.filter(selected);
    usedDistributed =
      !unavailable &&
      [...specs, ...sseSpecs, ...ownLoadSpecs].some(
        (spec) => spec.id.endsWith('-distributed') || spec.id === 'idle-postgres',
      );
    if (profiled)
      notes.push('CPU profiling was on for some runs: their figures include its overhead.');

    // PostgreSQL and Redis serve the distributed runs: their CPU counts towards those runs.
    let serverProbes: CpuProbe[] = [];
    if (usedDistributed) {
      const found = await serverCpuProbes();
      serverProbes = found.probes;
      notes.push(...found.notes);
    }
    const probesFor = (spec: { id: string }) =>
      spec.id.endsWith('-distributed') || spec.id === 'idle-postgres' ? serverProbes : [];
    const runs: RunOutcome[] = await executeRounds(specs, settings, rounds, probesFor);
    // Once, after the rounds: a fan-out round is long, and no ratio pairs it with another run.
    for (const spec of sseSpecs) runs.push(await spec.execute(settings, probesFor(spec)));
    for (const spec of ownLoadSpecs) runs.push(await spec.execute(settings, probesFor(spec)));

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
      settings: { ...settings, rounds },
      runs,
      comparisons: compare(runs, [
        ...intakeComparisons,
        ...silenceComparisons,
        ...errtrackerComparisons,
        ...readbackComparisons,
      ]),
      latency: checkLatency(
        runs,
        [...intakeLatencyTargets, ...sseLatencyTargets],
        settings.connections,
      ),
      storm: [...stormVerdicts(runs), ...chatStormVerdicts(runs), ...idleVerdicts(runs)],
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
