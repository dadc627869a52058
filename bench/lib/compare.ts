import { median } from './rounds.js';
import type { Comparison, LatencyTarget, RoundFigures, RunOutcome } from './run-spec.js';

export type Verdict = 'PASS' | 'FAIL' | 'info' | 'n/a';

export interface ComparisonOutcome extends Comparison {
  /** Median of the per-round ratios; the verdict is taken on it. */
  ratio?: number;
  min?: number;
  max?: number;
  /** Ratio of each round both runs completed, in round order. */
  roundRatios?: number[];
  verdict: Verdict;
}

export interface LatencyOutcome extends LatencyTarget {
  p99?: number;
  verdict: Verdict;
  reason?: string;
}

function figure(round: RoundFigures, metric: Comparison['metric']): number | undefined {
  if (metric === 'cpu') return round.cpu?.totalMs;
  return metric === 'serviceCpu' ? round.cpu?.targetMs : round.rps;
}

/**
 * A run's figure by round. A run that brings its own load (SSE, sustained) runs once, after
 * the rounds: it has no round numbers, and its one figure stands for every round.
 */
function byRound(run: RunOutcome | undefined, metric: Comparison['metric']) {
  if (!run?.result) return undefined;
  if (!run.rounds) {
    const once =
      metric === 'cpu'
        ? run.cpu?.totalMs
        : metric === 'serviceCpu'
          ? run.cpu?.targetMs
          : run.result.rps;
    return (_round: number) => once;
  }
  const figures = new Map(run.rounds.map((round) => [round.round, figure(round, metric)]));
  return (round: number) => figures.get(round);
}

/**
 * Pairs the numerator's and denominator's figures of the same round: the two ran minutes
 * apart at most, so a ratio within a round is not skewed by the machine's load drifting.
 */
export function compare(runs: RunOutcome[], comparisons: Comparison[]): ComparisonOutcome[] {
  const okRun = (id: string) => runs.find((run) => run.id === id && run.status === 'ok');
  return comparisons.map((comparison) => {
    const numerator = okRun(comparison.numerator);
    const denominator = okRun(comparison.denominator);
    const top = byRound(numerator, comparison.metric);
    const bottom = byRound(denominator, comparison.metric);
    const roundNumbers = (numerator?.rounds ?? denominator?.rounds ?? [{ round: 1 }]).map(
      (round) => round.round,
    );
    const roundRatios = roundNumbers.flatMap((round) => {
      const a = top?.(round);
      const b = bottom?.(round);
      return a !== undefined && b ? [a / b] : [];
    });
    if (roundRatios.length === 0) return { ...comparison, verdict: 'n/a' };
    const ratio = median(roundRatios);
    const { target } = comparison;
    // CPU is better lower, throughput higher.
    const lowerIsBetter = comparison.metric === 'cpu' || comparison.metric === 'serviceCpu';
    const met = lowerIsBetter ? ratio <= (target ?? 0) : ratio >= (target ?? 0);
    return {
      ...comparison,
      ratio,
      min: Math.min(...roundRatios),
      max: Math.max(...roundRatios),
      roundRatios,
      verdict: target === undefined ? 'info' : met ? 'PASS' : 'FAIL',
    };
  });
}

/** Judges each bound on the run's p99 (the median of its rounds' p99s). */
export function checkLatency(
  runs: RunOutcome[],
  targets: LatencyTarget[],
  connections: number,
): LatencyOutcome[] {
  return targets.map((target) => {
    const run = runs.find((r) => r.id === target.run && r.status === 'ok');
    const p99 = run?.result?.p99Ms;
    if (p99 === undefined || Number.isNaN(p99)) return { ...target, verdict: 'n/a' };
    if (target.connections !== undefined && target.connections !== connections) {
      const reason = `bound is for ${target.connections} connections, ran ${connections}`;
      return { ...target, p99, verdict: 'n/a', reason };
    }
    const met = target.strict ? p99 < target.maxP99Ms : p99 <= target.maxP99Ms;
    return { ...target, p99, verdict: met ? 'PASS' : 'FAIL' };
  });
}
