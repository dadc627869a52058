import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RegexPrograms } from '../../src/features/silences/regex-programs.js';
import { SilenceCache } from '../../src/features/silences/silence-cache.js';
import {
  compileMatcher,
  compileSilenceMatchers,
  type Matcher,
  matchesLabels,
} from '../../src/features/silences/silence-matchers.js';
import type { Silence } from '../../src/features/silences/silence-records.js';

/**
 * CONTRACT, Silences: "Matching, as Alertmanager's". The reference below is Alertmanager's
 * rule written plainly (pkg/labels/matcher.go, silence matching): a regex matcher is
 * `^(?:value)$`, `isEqual: false` negates, a missing label is "", every matcher must match.
 * Patterns are drawn from the syntax JavaScript and RE2 read alike, so RegExp can judge them.
 */
function reference(matchers: readonly Matcher[], labels: Record<string, string>): boolean {
  return matchers.every((matcher) => {
    const value = Object.hasOwn(labels, matcher.name) ? labels[matcher.name]! : '';
    const hit = matcher.isRegex
      ? new RegExp(`^(?:${matcher.value})$`).test(value)
      : value === matcher.value;
    return hit === matcher.isEqual;
  });
}

const NAMES = ['alertname', 'job', 'env', 'pod'];
const atom = fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '\\.', 'ab');
const piece = fc
  .tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}'))
  .map(([unit, quantifier]) =>
    quantifier && unit.length > 1 && !unit.startsWith('[') && !unit.startsWith('\\')
      ? `(?:${unit})${quantifier}`
      : unit + quantifier,
  );
const branch = fc.array(piece, { minLength: 0, maxLength: 3 }).map((pieces) => pieces.join(''));
const pattern = fc
  .array(branch, { minLength: 1, maxLength: 3 })
  .map((branches) => branches.join('|'));
const labelValue = fc.stringMatching(/^[abc.]{0,4}$/);

const matcher: fc.Arbitrary<Matcher> = fc.oneof(
  fc.record({
    name: fc.constantFrom(...NAMES),
    value: labelValue,
    isRegex: fc.constant(false),
    isEqual: fc.boolean(),
  }),
  fc.record({
    name: fc.constantFrom(...NAMES),
    value: pattern,
    isRegex: fc.constant(true),
    isEqual: fc.boolean(),
  }),
);
const labels = fc.dictionary(fc.constantFrom(...NAMES), labelValue, { maxKeys: NAMES.length });

describe("silence matchers give Alertmanager's verdicts (property)", () => {
  it('matchesLabels agrees with the reference on random matchers and labels', () => {
    fc.assert(
      fc.property(fc.array(matcher, { minLength: 1, maxLength: 4 }), labels, (matchers, set) => {
        expect(
          matchesLabels(
            matchers.map((one) => compileMatcher(one)),
            set,
          ),
        ).toBe(reference(matchers, set));
      }),
      { numRuns: 3000 },
    );
  });

  it('so do stored matchers judged by a bounded store of programs that keeps pushing them out', () => {
    // A budget below one program: every other pattern is compiled again.
    const programs = new RegexPrograms({ programBytes: 1, verdictBytes: 1 });
    fc.assert(
      fc.property(fc.array(matcher, { minLength: 1, maxLength: 4 }), labels, (matchers, set) => {
        expect(matchesLabels(compileSilenceMatchers(matchers, programs), set)).toBe(
          reference(matchers, set),
        );
        expect(programs.size).toBeLessThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });

  it('the indexed cache mutes exactly when some active silence matches', () => {
    const now = 1_000_000;
    const silence = (matchers: Matcher[], index: number): Silence => ({
      id: `s${index}`,
      matchers,
      startsAt: now - 1,
      endsAt: now + 1000,
      updatedAt: now,
      createdBy: 'prop',
      comment: 'prop',
      silencedAlerts: 0,
      recentSilenced: [],
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(matcher, { minLength: 1, maxLength: 3 }), { maxLength: 8 }),
        labels,
        (sets, set) => {
          const cache = new SilenceCache(
            new RegexPrograms({ programBytes: 1 << 26, verdictBytes: 1 << 25 }),
          );
          const silences = sets.map(silence);
          cache.replaceAll(silences, now);
          const muting = cache.mutedBy(set, now);
          const expected = silences.filter((entry) => reference(entry.matchers, set));
          if (expected.length === 0) expect(muting).toBeUndefined();
          else expect(expected.map((entry) => entry.id)).toContain(muting);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('with many silences, remembering what a label set matched gives the same verdicts as time passes and silences change', () => {
    const now = 1_000_000;
    const windowed = ([matchers, starts, lasts]: [Matcher[], number, number], index: number) => ({
      id: `s${index}`,
      matchers,
      startsAt: now + starts,
      endsAt: now + starts + lasts,
      updatedAt: now,
      createdBy: 'prop',
      comment: 'prop',
      silencedAlerts: 0,
      recentSilenced: [],
    });
    const window = fc.tuple(
      fc.array(matcher, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: -50, max: 50 }),
      fc.integer({ min: 1, max: 100 }),
    );
    fc.assert(
      fc.property(
        fc.array(window, { minLength: 64, maxLength: 100 }),
        fc.array(fc.tuple(labels, fc.integer({ min: 0, max: 100 })), { maxLength: 12 }),
        fc.nat(),
        fc.boolean(),
        (windows, asked, dropAt, tight) => {
          // A tight budget pushes label sets out, and leaves long match lists unremembered.
          const cache = new SilenceCache(
            new RegexPrograms({ programBytes: 1 << 26, verdictBytes: 1 << 25 }),
            tight
              ? { from: 64, labelSets: 3, matches: 40, matchesPerSet: 20 }
              : { from: 64, labelSets: 4096, matches: 262_144, matchesPerSet: 256 },
          );
          // The cache holds what is unexpired at `now`, and is asked about later times.
          let silences = windows.map(windowed).filter((entry) => entry.endsAt > now);
          cache.replaceAll(windows.map(windowed), now);
          const check = (set: Record<string, string>, at: number) => {
            const muting = cache.mutedBy(set, at);
            const expected = silences.filter(
              (entry) =>
                entry.startsAt <= at && at < entry.endsAt && reference(entry.matchers, set),
            );
            if (expected.length === 0) expect(muting).toBeUndefined();
            else expect(expected.map((entry) => entry.id)).toContain(muting);
          };
          // Each label set twice, at other times: the second is answered from memory.
          for (const [set, offset] of asked) check(set, now + offset);
          for (const [set, offset] of asked) check(set, now + 100 - offset);
          const dropped = silences[dropAt % Math.max(silences.length, 1)];
          if (dropped) {
            cache.remove(dropped.id);
            silences = silences.filter((entry) => entry !== dropped);
          }
          for (const [set, offset] of asked) check(set, now + offset);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('matches in linear time whatever the pattern (RE2)', () => {
    const evil = compileMatcher({ name: 'a', value: '(a+)+$', isRegex: true, isEqual: true });
    const started = performance.now();
    expect(evil.matchesValue(`${'a'.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
