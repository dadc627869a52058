import type { CpuProfileSummary } from './cpu-profile.js';
import type { LoadPlan, LoadResult, SampleResponse } from './load.js';
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

/** A ratio of two runs' requests/s, e.g. signals ÷ bare; `target` is the minimum to PASS. */
export interface Comparison {
  label: string;
  numerator: string;
  denominator: string;
  target?: number;
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
  result?: LoadResult;
  notes: string[];
  /** Warning and error lines the target logged during the run. */
  targetProblemLines?: number;
  profile?: CpuProfileSummary;
}
