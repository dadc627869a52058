import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, sourceFiles } from '../helpers/source-files.js';

/**
 * CONTRACT, Bad input: "Nothing from a request is matched by a pattern that can backtrack
 * super-linearly." Every regular expression written in `src/` (literals, `new RegExp` of a
 * string known at compile time, and TypeBox `pattern:` strings, which Ajv compiles with `u`)
 * must be judged `safe` by recheck, or be named below with the reason it is safe anyway.
 *
 * recheck's checks take from milliseconds to over ten seconds a pattern, minutes for the whole
 * source, so its verdicts are kept in `regex-verdicts.json`, keyed by the exact pattern and
 * flags and the recheck version: a new or edited pattern has no verdict there and is checked
 * now. `UPDATE_REGEX_VERDICTS=1 npx vitest run test/security/regex-linearity.test.ts` records
 * the verdicts of the current patterns (commit the file); `RECHECK_ALL=1` ignores the file.
 */

const ROOT = REPO_ROOT;
const VERDICTS_FILE = path.join(ROOT, 'test/security/regex-verdicts.json');
const RECHECK_VERSION: string = createRequire(import.meta.url)('recheck/package.json').version;
/** Per check. recheck reports `unknown` past it, which fails the pattern. */
const CHECK_TIMEOUT_MS = 30_000;
/** Only patterns without a recorded verdict are checked; each new one takes seconds. */
const JUDGE_TIMEOUT_MS = 600_000;
/**
 * One check at a time: recheck's fuzzer stops its phases on wall-clock timeouts, and checks
 * competing for the cores end early and report attacks that the engine does not suffer.
 */
const CONCURRENT_CHECKS = 1;

/**
 * Patterns recheck does not judge safe that are safe for the stated reason. Keep it short: a
 * pattern that reads request text belongs in a rewrite, not here.
 */
const ALLOWED: ReadonlyArray<{ file: string; pattern: string; reason: string }> = [
  {
    file: 'src/config/env-variable.ts',
    pattern: String.raw`/\/+$/`,
    reason: 'trims the trailing slashes of configured base URLs, read once at start',
  },
  {
    file: 'src/adapters/telegram/telegram-chat.ts',
    pattern: String.raw`/\/+$/`,
    reason: 'trims the trailing slashes of CHAT_API_BASE (configuration)',
  },
  {
    file: 'src/adapters/analyzers/chat-completions.ts',
    pattern: String.raw`/\/+$/`,
    reason: 'trims the trailing slashes of LLM_BASE_URL (configuration)',
  },
  {
    file: 'src/features/inventory/workspace-globs.ts',
    pattern: String.raw`/\/+$/`,
    reason: "trims a workspace glob from the inventoried repository's own manifest",
  },
  {
    file: 'src/features/inventory/yarn-classic-lockfile.ts',
    pattern: String.raw`/^("(?:[^"\\]|\\.)*"|\S+)\s+(.*)$/`,
    reason: "one line of the inventoried repository's own yarn.lock, not a request",
  },
  {
    file: 'src/features/inventory/yarn-reader.ts',
    pattern: '/^(.+)@workspace:(.+)$/',
    reason: "a locator from the inventoried repository's own lock file, not a request",
  },
];

/** `new RegExp` of text only known at run time; each is built from trusted or escaped text. */
const ALLOWED_DYNAMIC: ReadonlyArray<{ file: string; code: string; reason: string }> = [
  {
    file: 'src/features/intake/alert-type-rules.ts',
    code: 'new RegExp(source, flags)',
    reason: "the operator's ALERT_RULES_FILE patterns: configuration, compiled once at start",
  },
  {
    file: 'src/features/inventory/workspace-globs.ts',
    code: 'new RegExp(`^',
    reason: "the inventoried repository's workspace globs, escaped, one `[^/]*` per `*`",
  },
  {
    file: 'src/features/readbacks/public-terms.ts',
    code: 'new RegExp(',
    reason:
      'an alternation of escaped literal code names from config/public-terms.yaml, bounded by ' +
      'one-character lookarounds: no quantifier at all',
  },
];

interface Found {
  file: string;
  line: number;
  /** `/source/flags`, the key of the verdict file and of ALLOWED. */
  pattern: string;
  source: string;
  flags: string;
}

interface Dynamic {
  file: string;
  line: number;
  code: string;
}

interface Verdict {
  status: Diagnostics['status'];
  checker: string | null;
  complexity: string | null;
  attack?: string;
}

interface VerdictFile {
  recheck: string;
  verdicts: Record<string, Verdict>;
}

/** Every pattern of one file, and every `new RegExp` whose text is not known statically. */
function patternsOf(file: string): { found: Found[]; dynamic: Dynamic[] } {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const dynamic: Dynamic[] = [];
  const constants = new Map<string, ts.Expression>();
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const add = (node: ts.Node, source: string, flags: string) =>
    found.push({ file, line: lineOf(node), pattern: `/${source}/${flags}`, source, flags });

  const collectConstants = (node: ts.Node): void => {
    if (
      ts.isVariableDeclarationList(node) &&
      (node.flags & ts.NodeFlags.Const) !== 0 &&
      node.declarations.length > 0
    ) {
      for (const declaration of node.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer)
          constants.set(declaration.name.text, declaration.initializer);
      }
    }
    ts.forEachChild(node, collectConstants);
  };
  collectConstants(sf);

  /** The string an expression always has (literals, String.raw, templates of constants). */
  const stringOf = (node: ts.Expression, depth = 0): string | undefined => {
    if (depth > 8) return undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isParenthesizedExpression(node)) return stringOf(node.expression, depth + 1);
    if (ts.isIdentifier(node)) {
      const value = constants.get(node.text);
      return value === undefined ? undefined : stringOf(value, depth + 1);
    }
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(sf) === 'String.raw') {
      const template = node.template;
      if (ts.isNoSubstitutionTemplateLiteral(template)) return template.rawText;
      let out = template.head.rawText ?? '';
      for (const span of template.templateSpans) {
        const part = stringOf(span.expression, depth + 1);
        if (part === undefined) return undefined;
        out += part + (span.literal.rawText ?? '');
      }
      return out;
    }
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) {
        const part = stringOf(span.expression, depth + 1);
        if (part === undefined) return undefined;
        out += part + span.literal.text;
      }
      return out;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = stringOf(node.left, depth + 1);
      const right = stringOf(node.right, depth + 1);
      return left === undefined || right === undefined ? undefined : left + right;
    }
    return undefined;
  };

  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = (node as ts.RegularExpressionLiteral).text;
      const end = literal.lastIndexOf('/');
      add(node, literal.slice(1, end), literal.slice(end + 1));
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp'
    ) {
      const [sourceArg, flagsArg] = node.arguments ?? [];
      const source = sourceArg && stringOf(sourceArg);
      const flags = flagsArg ? stringOf(flagsArg) : '';
      if (source === undefined || flags === undefined)
        dynamic.push({ file, line: lineOf(node), code: node.getText(sf) });
      else add(node, source, flags);
    } else if (
      ts.isPropertyAssignment(node) &&
      node.name.getText(sf) === 'pattern' &&
      (ts.isStringLiteral(node.initializer) || ts.isNoSubstitutionTemplateLiteral(node.initializer))
    ) {
      // A JSON Schema `pattern`: Ajv applies it to request fields as `new RegExp(p, 'u')`.
      add(node, node.initializer.text, 'u');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { found, dynamic };
}

function readVerdicts(): Map<string, Verdict> {
  if (process.env.RECHECK_ALL || !fs.existsSync(VERDICTS_FILE)) return new Map();
  const file = JSON.parse(fs.readFileSync(VERDICTS_FILE, 'utf8')) as VerdictFile;
  // Another recheck may judge differently: its verdicts are taken afresh.
  if (file.recheck !== RECHECK_VERSION) return new Map();
  return new Map(Object.entries(file.verdicts));
}

function verdictOf(diagnostics: Diagnostics): Verdict {
  return {
    status: diagnostics.status,
    checker: diagnostics.checker ?? null,
    complexity:
      diagnostics.status === 'unknown'
        ? `unknown: ${diagnostics.error.kind}`
        : diagnostics.complexity.summary,
    ...(diagnostics.status === 'vulnerable' ? { attack: diagnostics.attack.pattern } : {}),
  };
}

/**
 * recheck's default: its automaton checker, exact, when the pattern is small enough, else its
 * fuzzer. The fuzzer reads a bounded repeat (`[^\n]{0,60}`) as growth and reports a degree for
 * what is only a constant factor, so a pattern it does not pass gets the automaton checker with
 * bounded repeats unrolled; that one decides exactly, or reports `unknown` (lookarounds and
 * back-references it does not model, or the timeout) and the fuzzer's verdict stands.
 */
async function judge(source: string, flags: string): Promise<Verdict> {
  const first = await check(source, flags, { timeout: CHECK_TIMEOUT_MS });
  if (first.status === 'safe' || first.checker === 'automaton') return verdictOf(first);
  const exact = await check(source, flags, {
    timeout: CHECK_TIMEOUT_MS,
    checker: 'automaton',
    maxRepeatCount: 1_000,
    maxNFASize: 1_000_000,
    maxPatternSize: 100_000,
  });
  return verdictOf(exact.status === 'unknown' ? first : exact);
}

async function judgeAll(patterns: readonly Found[]): Promise<Map<string, Verdict>> {
  const queue = [...patterns];
  const verdicts = new Map<string, Verdict>();
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift())
      verdicts.set(next.pattern, await judge(next.source, next.flags));
  };
  await Promise.all(Array.from({ length: CONCURRENT_CHECKS }, worker));
  return verdicts;
}

const files = sourceFiles('src');
const all = files.map(patternsOf);
const found = all.flatMap((f) => f.found);
const dynamic = all.flatMap((f) => f.dynamic);
const isAllowed = (p: Found) =>
  ALLOWED.some((entry) => entry.file === p.file && entry.pattern === p.pattern);

describe('regular expressions in src/', () => {
  it('finds the patterns it is meant to judge', () => {
    // A walker that found nothing would pass everything: one file of each kind it reads.
    expect(found.length).toBeGreaterThan(200);
    const inFile = (file: string) => found.filter((p) => p.file === `src/${file}`);
    // literals, and templates of constants (`${SAFE}`)
    expect(inFile('features/intake/fingerprint.ts')).toHaveLength(5);
    // String.raw constants inside templates
    expect(inFile('features/inventory/specifiers.ts').map((p) => p.pattern)).toContain(
      String.raw`/^=?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/`,
    );
    // TypeBox `pattern` strings
    expect(inFile('features/readbacks/recovery-receipt.ts').map((p) => p.flags)).toEqual(['u']);
  });

  it('builds no RegExp from run-time text except the ones named with a reason', () => {
    const unexplained = dynamic.filter(
      (d) => !ALLOWED_DYNAMIC.some((a) => a.file === d.file && d.code.startsWith(a.code)),
    );
    expect(unexplained.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual([]);
    const stale = ALLOWED_DYNAMIC.filter(
      (a) => !dynamic.some((d) => a.file === d.file && d.code.startsWith(a.code)),
    );
    expect(stale.map((a) => `${a.file} ${a.code}`)).toEqual([]);
  });

  it('names in the allowlist only patterns that still exist', () => {
    const stale = ALLOWED.filter(
      (entry) => !found.some((p) => p.file === entry.file && p.pattern === entry.pattern),
    );
    expect(stale.map((entry) => `${entry.file} ${entry.pattern}`)).toEqual([]);
  });

  it(
    'judges every other pattern safe from super-linear backtracking (recheck)',
    async () => {
      const cached = readVerdicts();
      const toJudge = found.filter((p) => !isAllowed(p));
      const update = Boolean(process.env.UPDATE_REGEX_VERDICTS);
      const unknown = new Map<string, Found>();
      for (const p of toJudge) {
        const verdict = cached.get(p.pattern);
        // Recording again, a pattern not judged safe gets another look.
        if (!verdict || (update && verdict.status !== 'safe')) unknown.set(p.pattern, p);
      }
      const fresh = await judgeAll([...unknown.values()]);
      const verdicts = new Map([...cached, ...fresh]);

      if (update) {
        const current = Object.fromEntries(
          [...new Set(toJudge.map((p) => p.pattern))]
            .sort()
            .map((pattern) => [pattern, verdicts.get(pattern)!]),
        );
        const file: VerdictFile = { recheck: RECHECK_VERSION, verdicts: current };
        fs.writeFileSync(VERDICTS_FILE, `${JSON.stringify(file, null, 2)}\n`);
      }

      const unsafe = toJudge
        .filter((p) => verdicts.get(p.pattern)?.status !== 'safe')
        .map((p) => {
          const v = verdicts.get(p.pattern)!;
          const why = v.attack ? `${v.complexity}, attack ${v.attack}` : v.complexity;
          return `${p.file}:${p.line} ${p.pattern} (${v.status}: ${why})`;
        });
      expect(unsafe).toEqual([]);
    },
    JUDGE_TIMEOUT_MS,
  );
});
