import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * The README traces the ratio targets that fail to the costs the patches in bench/bounds take
 * out (bench/bounds/run.sh builds and runs them). A patch that no longer applies would leave
 * that evidence unrepeatable without anyone noticing, so each one must apply to the source as
 * it is, and name bench runs the bench documents.
 */

const BOUNDS = path.join(REPO_ROOT, 'bench/bounds');
const patches = fs.readdirSync(BOUNDS).filter((name) => name.endsWith('.patch'));
const inGitCheckout = (() => {
  try {
    execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: REPO_ROOT, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
})();
/** bench/README.md's table of runs, the one place each run id is documented. */
const runsTable = (() => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'bench/README.md'), 'utf8');
  const start = readme.indexOf('\n## Runs\n');
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
})();

describe('bench bounds', () => {
  it('has the four bounds the README cites', () => {
    expect(patches.sort()).toEqual([
      'converge-write.patch',
      'follow-up.patch',
      'signal-append.patch',
      'tracker-stages.patch',
    ]);
  });

  for (const name of patches) {
    const text = fs.readFileSync(path.join(BOUNDS, name), 'utf8');

    it(`${name} names runs of the bench's table of runs`, () => {
      const runs = /^runs: (.+)$/m.exec(text)?.[1]?.split(',') ?? [];
      expect(runs.length).toBeGreaterThan(0);
      for (const run of runs) {
        const documented = run.replace(/-(embedded|distributed)$/, '-<mode>');
        const row = runsTable.split('\n').find((line) => line.startsWith(`| \`${documented}\``));
        expect(row, run).toBeDefined();
      }
    });

    it.runIf(inGitCheckout)(`${name} applies to the source as it is`, () => {
      // Throws with git's own message naming the hunk that no longer applies.
      execFileSync('git', ['apply', '--check', path.join(BOUNDS, name)], {
        cwd: REPO_ROOT,
        stdio: 'pipe',
      });
    });
  }
});
