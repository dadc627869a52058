import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOUND_RUNS } from '../../bench/bounds/bounds.js';
import { BENCH_BOUNDS } from '../../src/config/variables.js';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * The README traces the ratio targets that fail to the costs BENCH_BOUND takes out
 * (bench/bounds/run.sh runs them). A bound whose runs the bench no longer documents would
 * leave that evidence unrepeatable without anyone noticing, so each names runs of the bench's
 * table, and the bench's table of bounds lists exactly the service's. That each bound takes
 * its cost out is checked by what the service does: test/bench/bench-bound-settings.test.ts.
 */
const readme = fs.readFileSync(path.join(REPO_ROOT, 'bench/README.md'), 'utf8');
const section = (heading: string) => {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(0);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
};
/** The first cell of each row of a section's tables, without its backquotes. */
const ids = (text: string) =>
  text.split('\n').flatMap((line) => /^\| `([^`]+)`/.exec(line)?.[1] ?? []);

describe('bench bounds', () => {
  it('the bench knows each bound the service reads, and its table lists them', () => {
    expect(Object.keys(BOUND_RUNS).sort()).toEqual([...BENCH_BOUNDS].sort());
    expect(ids(section('Upper bounds')).sort()).toEqual([...BENCH_BOUNDS].sort());
  });

  for (const [bound, runs] of Object.entries(BOUND_RUNS)) {
    it(`${bound} names runs of the bench's table of runs`, () => {
      expect(runs.length).toBeGreaterThan(0);
      const documented = ids(section('Runs'));
      for (const run of runs) {
        expect(documented, run).toContain(run.replace(/-(embedded|distributed)$/, '-<mode>'));
      }
    });
  }

  it('leaves no patch behind for run.sh to apply', () => {
    const files = fs.readdirSync(path.join(REPO_ROOT, 'bench/bounds'));
    expect(files.filter((name) => name.endsWith('.patch'))).toEqual([]);
  });
});
