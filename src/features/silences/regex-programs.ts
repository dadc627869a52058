import { RE2JS } from 're2js';
import { SILENCE_PROBLEMS } from '../../errors.js';

/**
 * CONTRACT, Under races, crashes and abuse: "a regex matcher whose pattern exceeds 1,024
 * characters, or whose compiled form exceeds 64 KiB, is refused".
 */
export const REGEX_PATTERN_MAX_LENGTH = 1024;
export const REGEX_COMPILED_MAX_BYTES = 64 * 1024;
/**
 * RE2JS gives no byte size of a program, only its instruction count (`programSize`). The
 * compiled size is that count times Go's `regexp/syntax` instSize (5 words, 40 bytes), the
 * measure Alertmanager's own engine uses for its size check: 64 KiB is 1,638 instructions.
 */
const BYTES_PER_INSTRUCTION = 40;
/**
 * What a program costs on the V8 heap, measured with re2js 2.10: about 700 bytes an
 * instruction for small programs (their one-pass tables), 170 for large ones, plus a few
 * KiB for the object itself; the larger figure bounds both.
 */
const HEAP_PER_INSTRUCTION = 700;
const HEAP_PER_PROGRAM = 8 * 1024;
/** Heap a remembered verdict costs besides its value's characters (a Map entry). */
const HEAP_PER_VERDICT = 64;
/** Heap of a pattern's map of verdicts, empty. */
const HEAP_PER_VERDICT_MAP = 1024;

const VERDICTS_KEPT = 256;
/** Longer values are matched each time rather than kept as keys. */
const VERDICT_VALUE_MAX_LENGTH = 256;

/** Why a matcher cannot be compiled, naming its label name (CONTRACT, Silences). */
export class MatcherError extends Error {
  constructor(
    readonly matcherName: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'MatcherError';
  }
}

/**
 * Alertmanager (pkg/labels/matcher.go) compiles `^(?:<value>)$` with Go's RE2: RE2JS is the
 * same engine family, linear in the input whatever the pattern. Throws a MatcherError for a
 * pattern that does not compile or passes the limits.
 */
export function compileRegex(name: string, pattern: string): RE2JS {
  if (pattern.length > REGEX_PATTERN_MAX_LENGTH) {
    throw new MatcherError(
      name,
      SILENCE_PROBLEMS.patternTooLong(name, pattern.length, REGEX_PATTERN_MAX_LENGTH),
    );
  }
  let program: RE2JS;
  try {
    program = RE2JS.compile(`^(?:${pattern})$`);
  } catch (error) {
    throw new MatcherError(
      name,
      `Invalid regular expression in matcher "${name}": ${regexReason(error)}`,
    );
  }
  const bytes = program.programSize() * BYTES_PER_INSTRUCTION;
  if (bytes > REGEX_COMPILED_MAX_BYTES) {
    throw new MatcherError(
      name,
      SILENCE_PROBLEMS.compiledTooLarge(name, bytes, REGEX_COMPILED_MAX_BYTES),
    );
  }
  return program;
}

/**
 * Whether `program` (anchored at both ends) matches the whole of `value`. Through a matcher,
 * which runs RE2's one-pass, backtracking or NFA engines, never the lazy DFA that `test`
 * uses: that DFA caches states per program, up to 8 MiB each, and alerts with ever new label
 * values grew 20 programs' heap by 98 MiB (and ran 5 times slower) where a matcher grew it
 * by none. Verdicts are remembered, so the cheaper engine runs once per value.
 */
export function matchesWhole(program: RE2JS, value: string): boolean {
  return program.matcher(value).matches();
}

/** RE2JS quotes the whole anchored pattern after the reason; the reason alone is clearer. */
function regexReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoted = message.indexOf(': `');
  return quoted > 0 ? message.slice(0, quoted) : message;
}

/** An LRU map bounded by an estimate of the heap its entries take; the newest entry stays. */
class HeapBoundedMap<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get size(): number {
    return this.entries.size;
  }

  get estimatedBytes(): number {
    return this.bytes;
  }

  /** The value, now the most recently used (a Map iterates in insertion order). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.budget || this.entries.size <= 1) return;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/**
 * The compiled regexes of one replica's silences, by pattern, owned by the silences
 * capability. 10,000 silences at their limits would not fit compiled at once (CONTRACT,
 * Under races, crashes and abuse: "fit in 256 MiB of heap"), so a program is compiled when an
 * alert first needs it, kept within a heap budget, least recently used first out, and
 * compiled again only if it was pushed out. Verdicts are kept apart, within a budget of their
 * own, and outlive their program: an alert storm repeats the same few label values, so a
 * converged alert costs lookups, not RE2 runs nor compiling. Silences sharing a pattern
 * share its program and verdicts.
 */
export class RegexPrograms {
  /** null for a stored pattern that no longer compiles (or passes a limit). */
  private readonly programs: HeapBoundedMap<RE2JS | null>;
  /**
   * Read on every alert for every silence it is checked against, so a plain map with no
   * recency to keep: when its estimate passes the budget it starts over.
   */
  private readonly verdicts = new Map<string, Map<string, boolean>>();
  private verdictBytes = 0;
  private readonly verdictBudget: number;

  constructor(
    budget: { programBytes: number; verdictBytes: number },
    private readonly onUnusable: (pattern: string, reason: string) => void = () => undefined,
  ) {
    this.programs = new HeapBoundedMap(budget.programBytes);
    this.verdictBudget = budget.verdictBytes;
  }

  /** Programs held compiled now. */
  get size(): number {
    return this.programs.size;
  }

  /** The estimated heap of the programs and verdicts held. */
  get estimatedHeapBytes(): number {
    return this.programs.estimatedBytes + this.verdictBytes;
  }

  /** Keeps a program compiled elsewhere (a silence just validated): compiled once. */
  keep(pattern: string, program: RE2JS): void {
    if (this.programs.get(pattern) === undefined) {
      this.programs.set(pattern, program, programHeapBytes(pattern, program));
    }
  }

  /** Whether `value` matches the whole of `pattern`; undefined when the pattern is unusable. */
  test(pattern: string, value: string): boolean | undefined {
    let verdicts = this.verdicts.get(pattern);
    const remembered = verdicts?.get(value);
    if (remembered !== undefined) return remembered;
    const program = this.program(pattern);
    if (program === null) return undefined;
    const verdict = matchesWhole(program, value);
    if (value.length > VERDICT_VALUE_MAX_LENGTH) return verdict;
    let bytes = HEAP_PER_VERDICT + 2 * value.length;
    if (!verdicts || verdicts.size >= VERDICTS_KEPT) {
      if (verdicts) this.verdictBytes -= verdictMapBytes(pattern, verdicts);
      verdicts = new Map();
      this.verdicts.set(pattern, verdicts);
      bytes += HEAP_PER_VERDICT_MAP + 2 * pattern.length;
    }
    if (this.verdictBytes + bytes > this.verdictBudget) {
      this.verdicts.clear();
      verdicts = new Map();
      this.verdicts.set(pattern, verdicts);
      this.verdictBytes = HEAP_PER_VERDICT_MAP + 2 * pattern.length;
      bytes = HEAP_PER_VERDICT + 2 * value.length;
    }
    verdicts.set(value, verdict);
    this.verdictBytes += bytes;
    return verdict;
  }

  clear(): void {
    this.programs.clear();
    this.verdicts.clear();
    this.verdictBytes = 0;
  }

  private program(pattern: string): RE2JS | null {
    const held = this.programs.get(pattern);
    if (held !== undefined) return held;
    let program: RE2JS | null = null;
    try {
      program = compileRegex('', pattern);
    } catch (error) {
      this.onUnusable(pattern, error instanceof Error ? error.message : String(error));
    }
    this.programs.set(pattern, program, programHeapBytes(pattern, program));
    return program;
  }
}

function programHeapBytes(pattern: string, program: RE2JS | null): number {
  return (
    HEAP_PER_PROGRAM +
    2 * pattern.length +
    (program ? program.programSize() * HEAP_PER_INSTRUCTION : 0)
  );
}

/** What a pattern's verdicts were counted as, the map itself included. */
function verdictMapBytes(pattern: string, verdicts: Map<string, boolean>): number {
  let bytes = HEAP_PER_VERDICT_MAP + 2 * pattern.length;
  for (const value of verdicts.keys()) bytes += HEAP_PER_VERDICT + 2 * value.length;
  return bytes;
}
