import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * spec, Readbacks: live, the autonomous runtime control is "passed through a public-terms
 * redaction": internal code names become the public terms of a committed glossary
 * (config/public-terms.yaml), in keys and values at any depth.
 */
export interface PublicTerms {
  /** Longest first, so `winhost-vmx` is replaced before `winhost`. */
  readonly terms: ReadonlyArray<readonly [internal: string, term: string]>;
}

const TERM = /^[a-z0-9][a-z0-9_-]*$/i;

/** Validates a parsed glossary: `{ terms: { <internal>: <public> } }`. */
export function compilePublicTerms(document: unknown, origin: string): PublicTerms {
  const fail = (problem: string): never => {
    throw new Error(`public terms file ${origin}: ${problem}`);
  };
  const terms =
    typeof document === 'object' && document !== null
      ? (document as Record<string, unknown>).terms
      : undefined;
  if (typeof terms !== 'object' || terms === null || Array.isArray(terms)) {
    return fail('must be an object with a "terms" map of internal name to public term');
  }
  const pairs = Object.entries(terms).map(([internal, term]) => {
    if (!TERM.test(internal)) fail(`"${internal}" is not a plain code name`);
    if (typeof term !== 'string' || term.trim() === '') fail(`"${internal}" needs a public term`);
    return [internal, term as string] as const;
  });
  pairs.sort((a, b) => b[0].length - a[0].length);
  return { terms: pairs };
}

/** config/public-terms.yaml, found by walking up from this module (src/ and dist/ alike). */
export function loadPublicTerms(file?: string): PublicTerms {
  const path = file ?? findConfigFile('public-terms.yaml');
  let document: unknown;
  try {
    document = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`public terms file ${path}: ${(error as Error).message}`);
  }
  return compilePublicTerms(document, path);
}

function findConfigFile(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = join(dir, 'config', name);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`config/${name} not found above the service code`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces code names standing as words: letters, digits and `_` never continue them, so
 * hyphenated names are rewritten while snake_case identifiers (schema versions) are kept.
 */
export function publicTermsReplacer(glossary: PublicTerms): (text: string) => string {
  if (glossary.terms.length === 0) return (text) => text;
  const pattern = new RegExp(
    `(?<![A-Za-z0-9_])(?:${glossary.terms.map(([internal]) => escapeRegExp(internal)).join('|')})(?![A-Za-z0-9_])`,
    'gi',
  );
  const lookup = new Map(glossary.terms.map(([internal, term]) => [internal.toLowerCase(), term]));
  return (text) => text.replace(pattern, (match) => lookup.get(match.toLowerCase()) ?? match);
}

/** Pure: the document with every internal code name in keys and values replaced. */
export function applyPublicTerms<T>(value: T, glossary: PublicTerms): T {
  const replace = publicTermsReplacer(glossary);
  const walk = (inner: unknown): unknown => {
    if (typeof inner === 'string') return replace(inner);
    if (Array.isArray(inner)) return inner.map(walk);
    if (inner === null || typeof inner !== 'object') return inner;
    return Object.fromEntries(
      Object.entries(inner).map(([key, item]) => [replace(key), walk(item)]),
    );
  };
  return walk(value) as T;
}
