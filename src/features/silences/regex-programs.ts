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

/** RE2JS quotes the whole anchored pattern after the reason; the reason alone is clearer. */
function regexReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoted = message.indexOf(': `');
  return quoted > 0 ? message.slice(0, quoted) : message;
}

interface HeldProgram {
  /** null for a stored pattern that no longer compiles (or passes a limit): it matches nothing. */
  program: RE2JS | null;
  verdicts: Map<string, boolean>;
  heapBytes: number;
}

/**
 * The compiled regexes of one replica's silences, by pattern, owned by the silences
 * capability. Bounded by an estimate of their heap, least recently used first out: 10,000
 * silences at their limits would not fit compiled at once (CONTRACT, Under races, crashes
 * and abuse: "fit in 256 MiB of heap"), so a program is compiled when an alert first needs
 * it, and again only if it was pushed out. Silences sharing a pattern share its program.
 */
export class RegexPrograms {
  private readonly held = new Map<string, HeldProgram>();
  private heapBytes = 0;

  constructor(
    private readonly heapBudget: number,
    private readonly onUnusable: (pattern: string, reason: string) => void = () => undefined,
  ) {}

  /** The estimated heap the held programs take. */
  get estimatedHeapBytes(): number {
    return this.heapBytes;
  }

  get size(): number {
    return this.held.size;
  }

  /** Keeps a program compiled elsewhere (a silence just validated): compiled once. */
  keep(pattern: string, program: RE2JS): void {
    if (!this.held.has(pattern)) this.hold(pattern, program);
  }

  /** Whether `value` matches the whole of `pattern`; undefined when the pattern is unusable. */
  test(pattern: string, value: string): boolean | undefined {
    const entry = this.entry(pattern);
    if (entry.program === null) return undefined;
    // An alert storm repeats the same few label values: each verdict is remembered, in a
    // bounded map that starts over when full, so 1,000 silences cost lookups, not RE2 runs.
    const known = entry.verdicts.get(value);
    if (known !== undefined) return known;
    const verdict = entry.program.test(value);
    if (entry.verdicts.size >= VERDICTS_KEPT) this.forgetVerdicts(entry);
    if (value.length <= VERDICT_VALUE_MAX_LENGTH) {
      entry.verdicts.set(value, verdict);
      this.grow(entry, HEAP_PER_VERDICT + 2 * value.length);
    }
    return verdict;
  }

  clear(): void {
    this.held.clear();
    this.heapBytes = 0;
  }

  private entry(pattern: string): HeldProgram {
    const known = this.held.get(pattern);
    if (known) {
      // Most recently used last: a Map iterates in insertion order.
      this.held.delete(pattern);
      this.held.set(pattern, known);
      return known;
    }
    let program: RE2JS | null = null;
    try {
      program = compileRegex('', pattern);
    } catch (error) {
      this.onUnusable(pattern, error instanceof Error ? error.message : String(error));
    }
    return this.hold(pattern, program);
  }

  private hold(pattern: string, program: RE2JS | null): HeldProgram {
    const heapBytes =
      HEAP_PER_PROGRAM +
      2 * pattern.length +
      (program ? program.programSize() * HEAP_PER_INSTRUCTION : 0);
    const entry: HeldProgram = { program, verdicts: new Map(), heapBytes };
    this.held.set(pattern, entry);
    this.heapBytes += heapBytes;
    this.evict();
    return entry;
  }

  private grow(entry: HeldProgram, bytes: number): void {
    entry.heapBytes += bytes;
    this.heapBytes += bytes;
    this.evict();
  }

  private forgetVerdicts(entry: HeldProgram): void {
    let bytes = 0;
    for (const value of entry.verdicts.keys()) bytes += HEAP_PER_VERDICT + 2 * value.length;
    entry.verdicts.clear();
    entry.heapBytes -= bytes;
    this.heapBytes -= bytes;
  }

  /** Drops the least recently used programs until the estimate fits; the newest one stays. */
  private evict(): void {
    for (const [pattern, entry] of this.held) {
      if (this.heapBytes <= this.heapBudget || this.held.size <= 1) return;
      this.held.delete(pattern);
      this.heapBytes -= entry.heapBytes;
    }
  }
}
