import type { Arrival, ConvergeResult } from './converge-types.js';

type ConvergeBatch = (arrivals: Arrival[]) => Promise<ConvergeResult[]>;

/** Fingerprints the bound answers from memory; a bench sends a handful. */
const REMEMBERED_LIMIT = 10_000;

/**
 * BENCH_BOUND=converge-write only (bench/README.md, Upper bounds): a batch of repeats of
 * fingerprints this process wrote before is answered from memory (its hit counts counted
 * there), with no transaction and no statement, so the bench can price a repeat's write:
 * the fingerprint's lock, the open-incident lookup, the hit raise, the alert row and the
 * commit. The first alert of a fingerprint, and a signal's alert, still go to `write`.
 */
export function answeringRepeatsFromMemory(write: ConvergeBatch): ConvergeBatch {
  const known = new Map<string, ConvergeResult>();
  return async (arrivals) => {
    const repeats = arrivals.every(
      (arrival) => !arrival.options.signalEntryId && known.has(arrival.alert.fingerprint),
    );
    if (repeats) {
      return arrivals.map((arrival) => {
        const last = known.get(arrival.alert.fingerprint)!;
        last.hit_count += 1;
        return {
          status: 'converged' as const,
          alert_id: arrival.alert.alertId,
          fingerprint: last.fingerprint,
          incident_id: last.incident_id,
          approval_id: last.approval_id,
          hit_count: last.hit_count,
          analysis_scheduled: false,
        };
      });
    }
    const results = await write(arrivals);
    results.forEach((result, index) => {
      const { follow_up_job: _job, ...rest } = result;
      const fingerprint = arrivals[index]!.alert.fingerprint;
      if (known.size >= REMEMBERED_LIMIT && !known.has(fingerprint)) {
        known.delete(known.keys().next().value as string);
      }
      known.set(fingerprint, rest);
    });
    return results;
  };
}
