import {
  type CompiledMatcher,
  compileMatcher,
  type Matcher,
  matcherMatches,
} from './silence-matchers.js';

/** `GET …/silences?filter=…`: matchers in Prometheus's text form, as amtool sends them. */

const OPERATORS = [
  ['=~', { isRegex: true, isEqual: true }],
  ['!~', { isRegex: true, isEqual: false }],
  ['!=', { isRegex: false, isEqual: false }],
  ['=', { isRegex: false, isEqual: true }],
] as const;

/**
 * Parses `name="value"`, `name=~"re"`, `name!=value`, several separated by commas, in braces
 * or not. A hand-written scan, linear in the text (CONTRACT, Bad input). Throws a sentence
 * naming the problem.
 */
export function parseFilter(text: string): Matcher[] {
  let body = text.trim();
  if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
  const matchers: Matcher[] = [];
  let at = 0;
  while (at < body.length) {
    const parsed = parseOne(body, at);
    matchers.push(parsed.matcher);
    at = skipSpaces(body, parsed.end);
    if (at < body.length) {
      if (body[at] !== ',') throw new Error(`unexpected "${body[at]}" after a matcher`);
      at = skipSpaces(body, at + 1);
    }
  }
  if (matchers.length === 0) throw new Error('no matcher');
  return matchers;
}

function skipSpaces(text: string, from: number): number {
  let at = from;
  while (at < text.length && (text[at] === ' ' || text[at] === '\t')) at += 1;
  return at;
}

function parseOne(text: string, from: number): { matcher: Matcher; end: number } {
  let at = skipSpaces(text, from);
  const start = at;
  while (at < text.length && !'=!~,'.includes(text[at]!)) at += 1;
  const name = text.slice(start, at).trim();
  if (!name) throw new Error('a matcher has no label name');
  const operator = OPERATORS.find(([symbol]) => text.startsWith(symbol, at));
  if (!operator) throw new Error(`matcher "${name}" has no operator (=, !=, =~ or !~)`);
  at = skipSpaces(text, at + operator[0].length);
  const { value, end } = text[at] === '"' ? quoted(text, at) : unquoted(text, at);
  return { matcher: { name, value, ...operator[1] }, end };
}

function quoted(text: string, from: number): { value: string; end: number } {
  let value = '';
  for (let at = from + 1; at < text.length; at += 1) {
    const char = text[at]!;
    if (char === '"') return { value, end: at + 1 };
    if (char === '\\' && at + 1 < text.length) {
      at += 1;
      const escaped = text[at]!;
      value += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped;
    } else value += char;
  }
  throw new Error('a quoted value is not closed');
}

function unquoted(text: string, from: number): { value: string; end: number } {
  let at = from;
  while (at < text.length && text[at] !== ',') at += 1;
  return { value: text.slice(from, at).trim(), end: at };
}

/** A filter matcher, and whether its value was empty (Alertmanager treats that specially). */
export interface FilterMatcher {
  compiled: CompiledMatcher;
  emptyValue: boolean;
}

export function compileFilter(matchers: readonly Matcher[]): FilterMatcher[] {
  return matchers.map((matcher) => ({
    compiled: compileMatcher(matcher),
    emptyValue: matcher.value === '',
  }));
}

/**
 * Alertmanager's `matchFilterLabels` over a silence's own matchers taken as labels
 * (name → value): `a=""` also admits a silence without `a`, `a!=""` one with `a`.
 */
export function silenceMatchesFilter(
  silenceMatchers: readonly Matcher[],
  filter: readonly FilterMatcher[],
): boolean {
  const asLabels = new Map(silenceMatchers.map((matcher) => [matcher.name, matcher.value]));
  return filter.every(({ compiled, emptyValue }) => {
    const present = asLabels.has(compiled.name);
    if (emptyValue && (compiled.isEqual ? !present : present)) return true;
    return matcherMatches(compiled, asLabels.get(compiled.name) ?? '');
  });
}
