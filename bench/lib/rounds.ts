import { executeRun } from './execute.js';
import type { LoadResult, LoadSettings } from './load.js';
import type { CpuPerRequest, CpuProbe } from './proc-cpu.js';
import type { RoundFigures, RunOutcome, RunSpec } from './run-spec.js';

/**
 * BENCH_ROUNDS repeats the whole ordered list of runs, so two compared runs alternate
 * (A B A B A B) and a slow minute of the shared machine hits both rather than one. A run's
 * row is then the median of its rounds: one noisy round moves it less than a mean would.
 */

/** The middle value; with an even count, the mean of the two middle values. */
export function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function medianOf(values: (number | undefined)[]): number | undefined {
  const present = values.filter((v): v is number => v !== undefined);
  return present.length === values.length && present.length > 0 ? median(present) : undefined;
}

/** Each field on its own: a process not measured in some round is left out altogether. */
function medianCpu(cpus: (CpuPerRequest | undefined)[]): CpuPerRequest | undefined {
  if (cpus.length === 0 || cpus.some((cpu) => cpu === undefined)) return undefined;
  const all = cpus as CpuPerRequest[];
  return {
    targetMs: median(all.map((cpu) => cpu.targetMs)),
    postgresMs: medianOf(all.map((cpu) => cpu.postgresMs)),
    redisMs: medianOf(all.map((cpu) => cpu.redisMs)),
    totalMs: median(all.map((cpu) => cpu.totalMs)),
  };
}

/** Medians for rates and latencies; counts of responses, errors and codes add up. */
function mergeResults(results: LoadResult[]): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, count] of Object.entries(result.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  const sum = (pick: (result: LoadResult) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  return {
    rps: median(results.map((r) => r.rps)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    completed: sum((r) => r.completed),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    firstError: results.find((r) => r.firstError)?.firstError,
    durationS: sum((r) => r.durationS),
  };
}

/**
 * One RunOutcome from a run's rounds (in round order). A round that failed fails the run
 * (its reason says which round); the figures of the rounds that went well are still kept.
 */
export function mergeRounds(outcomes: RunOutcome[]): RunOutcome {
  const first = outcomes[0]!;
  if (outcomes.length === 1 && first.status !== 'ok') return first;
  const ok = outcomes.filter((o) => o.status === 'ok' && o.result);
  const failed = outcomes.findIndex((o) => o.status !== 'ok');
  const rounds: RoundFigures[] = outcomes.flatMap((o, i) =>
    o.status === 'ok' && o.result
      ? [
          {
            round: i + 1,
            rps: o.result.rps,
            p50Ms: o.result.p50Ms,
            p99Ms: o.result.p99Ms,
            completed: o.result.completed,
            cpu: o.cpu,
          },
        ]
      : [],
  );
  const label = (i: number) => (outcomes.length > 1 ? `round ${i + 1}: ` : '');
  const warmups = ok.flatMap((o) => (o.warmup ? [o.warmup] : []));
  return {
    ...first,
    status: failed === -1 ? 'ok' : 'failed',
    reason: failed === -1 ? undefined : `${label(failed)}${outcomes[failed]!.reason ?? ''}`,
    result: ok.length > 0 ? mergeResults(ok.map((o) => o.result!)) : undefined,
    warmup: warmups.length > 0 ? mergeResults(warmups) : undefined,
    cpu: medianCpu(ok.map((o) => o.cpu)),
    rounds,
    notes: outcomes.flatMap((o, i) => o.notes.map((note) => `${label(i)}${note}`)),
    targetProblemLines: outcomes.reduce((sum, o) => sum + (o.targetProblemLines ?? 0), 0),
    profile: outcomes.find((o) => o.profile)?.profile,
  };
}

/**
 * Round 1 runs every spec once in order, round 2 again, and so on. A run that was skipped or
 * failed is not repeated: a missing service or a broken path would only fail again, slowly.
 */
export async function executeRounds(
  specs: RunSpec[],
  settings: LoadSettings,
  rounds: number,
  serverProbesFor: (spec: RunSpec) => CpuProbe[],
): Promise<RunOutcome[]> {
  const outcomes = new Map<string, RunOutcome[]>(specs.map((spec) => [spec.id, []]));
  for (let round = 1; round <= rounds; round++) {
    if (rounds > 1) console.log(`\n=== Round ${round} of ${rounds} ===`);
    for (const spec of specs) {
      const earlier = outcomes.get(spec.id)!;
      if (earlier.some((outcome) => outcome.status !== 'ok')) continue;
      earlier.push(await executeRun(spec, settings, serverProbesFor(spec)));
    }
  }
  return specs.map((spec) => mergeRounds(outcomes.get(spec.id)!));
}
