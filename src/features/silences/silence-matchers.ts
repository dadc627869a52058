import { ownValue } from '../../support/own-value.js';
import { compileRegex, matchesWhole, type RegexPrograms } from './regex-programs.js';

export { MatcherError } from './regex-programs.js';

/** CONTRACT, Silences: Alertmanager's matcher, `{name, value, isRegex, isEqual}`. */
export interface Matcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

/** A matcher ready to judge label values: equality, or a compiled RE2 program. */
export interface CompiledMatcher {
  name: string;
  isEqual: boolean;
  /** The value an equality matcher compares with; unset for a regex. */
  exactValue?: string;
  matchesValue(value: string): boolean;
}

/**
 * A matcher ready to judge label values. A regex is judged by `programs`, the silences
 * capability's bounded store of compiled programs, which compiles it when first needed; without
 * it (a new silence, a list filter) the pattern is compiled here, and one that does not
 * compile or passes a limit throws a MatcherError.
 */
export function compileMatcher(matcher: Matcher, programs?: RegexPrograms): CompiledMatcher {
  const { name, value, isEqual } = matcher;
  if (!matcher.isRegex) {
    return { name, isEqual, exactValue: value, matchesValue: (given) => given === value };
  }
  if (programs) {
    // A stored pattern that no longer compiles (a limit lowered since) makes its matcher,
    // and so its silence, match nothing, whether it is `=~` or `!~`.
    const matchesValue = (given: string) => programs.test(value, given) ?? !isEqual;
    return { name, isEqual, matchesValue };
  }
  const program = compileRegex(name, value);
  return { name, isEqual, matchesValue: (given) => matchesWhole(program, given) };
}

/**
 * The matchers of a stored silence, equality ones first: every matcher must match, so the
 * cheap comparisons decide most alerts before any regex runs.
 */
export function compileSilenceMatchers(
  matchers: readonly Matcher[],
  programs: RegexPrograms,
): CompiledMatcher[] {
  return [
    ...matchers.filter((matcher) => !matcher.isRegex),
    ...matchers.filter((matcher) => matcher.isRegex),
  ].map((matcher) => compileMatcher(matcher, programs));
}

/** A matcher's verdict on a value: `isEqual: false` negates (Alertmanager's `!=` and `!~`). */
export function matcherMatches(matcher: CompiledMatcher, value: string): boolean {
  return matcher.matchesValue(value) === matcher.isEqual;
}

/**
 * Alertmanager's silence matching: every matcher matches the alert's labels, a missing label
 * being the empty string.
 */
export function matchesLabels(
  matchers: readonly CompiledMatcher[],
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const matcher of matchers) {
    if (!matcherMatches(matcher, ownValue(labels, matcher.name) ?? '')) return false;
  }
  return true;
}

/** Alertmanager's rule: a silence whose every matcher matches `""` would mute everything. */
export function matchesEverything(matchers: readonly CompiledMatcher[]): boolean {
  return matchers.every((matcher) => matcherMatches(matcher, ''));
}
