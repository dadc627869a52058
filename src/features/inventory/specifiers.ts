import type { SpecifierCounts } from './inventory-schema.js';

export type SpecifierKind = keyof SpecifierCounts;

const VERSION = String.raw`v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`;
const PARTIAL = String.raw`v?\d+(?:\.(?:\d+|x|\*)){0,2}(?:-[0-9A-Za-z.-]+)?`;
const EXACT = new RegExp(`^=?${VERSION}$`);
const CARET = new RegExp(`^\\^\\s*${PARTIAL}$`);
const TILDE = new RegExp(`^~>?\\s*${PARTIAL}$`);

/**
 * The spec's specifier buckets. `workspace:` wins; a caret, tilde or exact version counts only
 * when it is the whole range (`^1 || ^2`, `>=1 <2`, tags, URLs and aliases are `other`). A bare
 * `npm:` prefix (Yarn Berry's way to say "from the registry") does not change the bucket.
 */
export function classifySpecifier(specifier: string): SpecifierKind {
  const trimmed = specifier.trim();
  if (trimmed.startsWith('workspace:')) return 'workspace';
  const range =
    /^npm:[^@]/.test(trimmed) && !trimmed.slice(4).includes('@') ? trimmed.slice(4) : trimmed;
  if (EXACT.test(range)) return 'exact';
  if (CARET.test(range)) return 'caret';
  if (TILDE.test(range)) return 'tilde';
  return 'other';
}

export type Catalogs = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** `catalog:` and `catalog:default` name the default catalog; `catalog:<name>` a named one. */
export function catalogName(specifier: string): string | undefined {
  if (!specifier.startsWith('catalog:')) return undefined;
  return specifier.slice('catalog:'.length).trim() || 'default';
}

/** Resolves a specifier through the catalogs: undefined when the catalog has no such entry. */
export function resolveThroughCatalog(
  catalogs: Catalogs,
  name: string,
  specifier: string,
): string | undefined {
  const catalog = catalogName(specifier);
  if (catalog === undefined) return specifier;
  return catalogs.get(catalog)?.get(name);
}
