import type { CpuProfileSummary } from './cpu-profile.js';
import type { LoadPlan, LoadResult, SampleResponse } from './load.js';
import type { CpuPerRequest } from './proc-cpu.js';
import type { Target } from './target.js';

/**
 * One measured run. New benchmarks (error-tracker dedup, SSE fan-out, readback) are new
 * RunSpecs plus Comparisons; the executor and the report stay as they are.
 */
export interface RunSpec {
  /** Stable key in latest.json and in comparisons, e.g. `signals-embedded`. */
  id: string;
  label: string;
  /** Set when this machine cannot do the run (no PostgreSQL, no Alertmanager): a note, not a failure. */
  skip?: string;
  start(): Promise<Target>;
  plan: LoadPlan;
  /** Judges the sample's body once its status is 200; returns the problem, if any. */
  checkSample?(sample: SampleResponse): string | undefined;
  /** Facts read back from the target after the load, e.g. how many alerts converged. */
  afterLoad?(target: Target): Promise<string[]>;
  /** Where to write a `--cpu-prof` profile of the target; only the service supports it. */
  cpuProfileDir?: string;
}

/**
 * A ratio of two runs, taken round by round (both figures from the same round) and judged
 * on the median of those ratios. `rps`: requests/s, PASS when ≥ target. `cpu`: total CPU ms
 * per request, PASS when ≤ target. No target: informational.
 */
export interface Comparison {
  label: string;
  numerator: string;
  denominator: string;
  /** `cpu`: all CPU per request (with PostgreSQL's and Redis's); `serviceCpu`: the service's own. */
  metric?: 'rps' | 'cpu' | 'serviceCpu';
  target?: number;
}

/** A bound on one run's p99 latency (the median of its rounds' p99s). */
export interface LatencyTarget {
  label: string;
  run: string;
  maxP99Ms: number;
  /** PASS only when strictly below the bound (the SSE target says "under"). */
  strict?: boolean;
  /** The bound holds at this many connections; at any other BENCH_CONNECTIONS it is n/a. */
  connections?: number;
}

/** One round's figures of a run, kept so comparisons can pair runs of the same round. */
export interface RoundFigures {
  round: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  completed: number;
  cpu?: CpuPerRequest;
}

export interface RunOutcome {
  id: string;
  label: string;
  status: 'ok' | 'skipped' | 'failed';
  /** Why skipped or failed. */
  reason?: string;
  readyVia?: string;
  sample?: SampleResponse;
  warmup?: LoadResult;
  /** With several rounds: req/s, p50 and p99 are the medians of the rounds' figures. */
  result?: LoadResult;
  /** CPU ms per completed request in the measured window (median of the rounds, per field). */
  cpu?: CpuPerRequest;
  rounds?: RoundFigures[];
  notes: string[];
  /** Warning and error lines the target logged during the run. */
  targetProblemLines?: number;
  profile?: CpuProfileSummary;
}
