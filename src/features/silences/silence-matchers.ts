import { RE2JS } from 're2js';
import { ownValue } from '../../support/own-value.js';

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

const VERDICTS_KEPT = 256;
/** Longer values are matched each time rather than kept as keys. */
const VERDICT_VALUE_MAX_LENGTH = 256;

/** Why a matcher cannot be compiled, naming its label name (CONTRACT, Silences). */
export class MatcherError extends Error {
  constructor(
    readonly matcherName: string,
    reason: string,
  ) {
    super(`Invalid regular expression in matcher "${matcherName}": ${reason}`);
    this.name = 'MatcherError';
  }
}

/**
 * Alertmanager (pkg/labels/matcher.go) compiles `^(?:<value>)$` with Go's RE2 and asks
 * whether it matches anywhere: RE2JS is the same engine family, linear in the input
 * whatever the pattern, and `test` is Go's `MatchString`.
 */
export function compileMatcher(matcher: Matcher): CompiledMatcher {
  const { name, value, isEqual } = matcher;
  if (!matcher.isRegex) {
    return { name, isEqual, exactValue: value, matchesValue: (given) => given === value };
  }
  let program: RE2JS;
  try {
    program = RE2JS.compile(`^(?:${value})$`);
  } catch (error) {
    throw new MatcherError(name, regexReason(error));
  }
  // An alert storm repeats the same few label values: each verdict is remembered, in a
  // bounded map that starts over when full, so 1,000 silences cost lookups, not RE2 runs.
  const verdicts = new Map<string, boolean>();
  return {
    name,
    isEqual,
    matchesValue(given) {
      const known = verdicts.get(given);
      if (known !== undefined) return known;
      const verdict = program.test(given);
      if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
      if (given.length <= VERDICT_VALUE_MAX_LENGTH) verdicts.set(given, verdict);
      return verdict;
    },
  };
}

/** RE2JS quotes the whole anchored pattern after the reason; the reason alone is clearer. */
function regexReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoted = message.indexOf(': `');
  return quoted > 0 ? message.slice(0, quoted) : message;
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
