import { describe, expect, it } from 'vitest';
import { RegexPrograms } from '../../src/features/silences/regex-programs.js';

/**
 * CONTRACT, Under races, crashes and abuse: "Silences are bounded". The compiled regexes a
 * replica keeps stay within their heap budget however many patterns its silences hold.
 */
describe('the store of compiled silence regexes', () => {
  it('keeps its estimated heap within budget, compiling again what it pushed out', () => {
    const budget = { programBytes: 4 * 1024 * 1024, verdictBytes: 256 * 1024 };
    const programs = new RegexPrograms(budget);
    // 1,637 instructions each, near the 64 KiB limit: about 1.1 MiB each by the estimate.
    const pattern = (index: number) => `p${index}-[a-z]{1,800}`;
    for (let index = 0; index < 200; index++) {
      expect(programs.test(pattern(index), `p${index}-abc`)).toBe(true);
      expect(programs.test(pattern(index), 'other')).toBe(false);
      expect(programs.estimatedHeapBytes).toBeLessThanOrEqual(
        budget.programBytes + budget.verdictBytes,
      );
    }
    expect(programs.size).toBeLessThan(10);
    // Pushed out long ago, still judged right.
    expect(programs.test(pattern(0), 'p0-xyz')).toBe(true);
    expect(programs.test(pattern(0), 'p1-xyz')).toBe(false);
  });

  it('judges a stored pattern past the limits unusable instead of compiling it', () => {
    const unusable: string[] = [];
    const programs = new RegexPrograms({ programBytes: 1 << 20, verdictBytes: 1 << 20 }, (p) =>
      unusable.push(p),
    );
    expect(programs.test('[A-Za-z0-9]{0,1000}', 'abc')).toBeUndefined();
    expect(programs.test('(', 'abc')).toBeUndefined();
    expect(unusable).toEqual(['[A-Za-z0-9]{0,1000}', '(']);
    // Judged once: the refusal is remembered, not compiled again for every alert.
    programs.test('[A-Za-z0-9]{0,1000}', 'def');
    expect(unusable).toHaveLength(2);
  });
});
