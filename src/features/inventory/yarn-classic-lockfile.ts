import { InventoryReadError } from './inventory-errors.js';

export const YARN_LOCKFILE = 'yarn.lock';

/** One resolved block of a Yarn classic lock file: every pattern that resolved to it. */
export interface ClassicLockEntry {
  patterns: string[];
  line: number;
  version: string | undefined;
  /** `dependencies` and `optionalDependencies` of the resolved package, as `name@range`. */
  requests: string[];
}

export interface ClassicLockfile {
  version: string;
  entries: ClassicLockEntry[];
}

const QUOTED_OR_BARE = /"((?:[^"\\]|\\.)*)"|([^\s",][^,]*)/g;

function unquote(token: string): string {
  return token.startsWith('"') ? (JSON.parse(token) as string) : token;
}

/** `"a@^1", "a@^2"` or `a@^1, a@^2` → the patterns. */
function splitPatterns(key: string): string[] {
  return [...key.matchAll(QUOTED_OR_BARE)].map((match) =>
    match[1] !== undefined ? unquote(`"${match[1]}"`) : match[2]!.trim(),
  );
}

/** `name "value"`, `"@scope/name" "^1"` or `integrity sha512-…` → key and value. */
function splitField(text: string): [string, string] {
  const match = /^("(?:[^"\\]|\\.)*"|\S+)\s+(.*)$/.exec(text);
  if (!match) return [unquote(text), ''];
  return [unquote(match[1]!), unquote(match[2]!.trim())];
}

/** `name@range` → name; scoped names keep their leading `@`. */
export function patternName(pattern: string): string {
  const at = pattern.indexOf('@', 1);
  return at === -1 ? pattern : pattern.slice(0, at);
}

/**
 * Yarn classic's own format (not YAML): top-level pattern lists, two-space fields, and four-space
 * dependency maps. Only what the inventory needs is kept; a line that fits none of these shapes
 * makes the file unparsable.
 */
export function parseYarnClassicLockfile(text: string): ClassicLockfile {
  const entries: ClassicLockEntry[] = [];
  let entry: ClassicLockEntry | undefined;
  let section: string | undefined;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const indent = raw.length - raw.trimStart().length;
    const opensBlock = trimmed.endsWith(':');
    if (indent === 0 && opensBlock) {
      entry = {
        patterns: splitPatterns(trimmed.slice(0, -1)),
        line: index + 1,
        version: undefined,
        requests: [],
      };
      entries.push(entry);
      section = undefined;
    } else if (indent === 2 && entry) {
      section = opensBlock ? unquote(trimmed.slice(0, -1)) : undefined;
      const [key, value] = splitField(trimmed);
      if (!opensBlock && key === 'version') entry.version = value;
    } else if (indent === 4 && entry && section) {
      const [name, range] = splitField(trimmed);
      if (section === 'dependencies' || section === 'optionalDependencies')
        entry.requests.push(`${name}@${range}`);
    } else {
      throw new InventoryReadError(
        YARN_LOCKFILE,
        `line ${index + 1} is not Yarn lockfile v1 syntax`,
      );
    }
  });
  const header = /^# yarn lockfile v(\d+)/m.exec(text);
  return { version: header?.[1] ?? 'unknown', entries };
}
