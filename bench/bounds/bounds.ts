import { pathToFileURL } from 'node:url';
import type { BenchBound } from '../../src/config/variables.js';

/**
 * The bench runs that measure each BENCH_BOUND (bench/README.md, Upper bounds; what each takes
 * out is said where the service reads it). `npx tsx bench/bounds/bounds.ts <bound>` prints
 * them as BENCH_ONLY takes them, for run.sh.
 */
export const BOUND_RUNS: Record<BenchBound, readonly string[]> = {
  'converge-write': ['converged-embedded', 'converged-distributed'],
  // The storm runs cannot measure this bound: they wait for every incident's follow-up.
  'follow-up': [
    'converged-embedded',
    'converged-distributed',
    'new-alert-embedded',
    'new-alert-distributed',
  ],
  'tracker-stages': ['errtracker-dedup-embedded', 'errtracker-dedup-distributed', 'bare-tracker'],
  'signal-append': ['signals-sustained-embedded', 'signals-sustained-distributed'],
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bound = process.argv[2] ?? '';
  if (!Object.hasOwn(BOUND_RUNS, bound)) {
    console.error(`bounds: ${Object.keys(BOUND_RUNS).join(' ')}`);
    process.exit(2);
  }
  console.log(BOUND_RUNS[bound as BenchBound].join(','));
}
