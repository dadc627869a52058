/**
 * Workspace globs as pnpm (`pnpm-workspace.yaml` packages) and npm/Yarn (`workspaces`) write them:
 * `*`, `**`, `?`, `{a,b}`, `[abc]`, and `!` negations. Negations exclude wherever they appear,
 * as pnpm's ignore list does. A pattern names directories; pnpm appends `/package.json`, which
 * is why a trailing `/**` also matches the directory itself.
 */
export interface WorkspaceGlobs {
  include: RegExp[];
  exclude: RegExp[];
  /** How deep a directory walk must go; Infinity when a positive pattern holds `**`. */
  maxDepth: number;
}

function normalize(pattern: string): string {
  return pattern.trim().replace(/^\.\//, '').replace(/\/+$/, '') || '.';
}

function escapeRegExp(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function segmentToRegExp(segment: string): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!;
    if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '{') {
      braceDepth++;
      out += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (char === ',' && braceDepth > 0) out += '|';
    else if (char === '[') {
      const end = segment.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        const body = segment
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replaceAll('\\', '\\\\');
        out += `[${body}]`;
        i = end;
      }
    } else out += escapeRegExp(char);
  }
  return out;
}

/** One glob (without its `!`) as an anchored RegExp over relative directory paths. */
export function globToRegExp(pattern: string): RegExp {
  const segments = normalize(pattern).split('/');
  if (segments.length === 1 && segments[0] === '**') return /^.*$/;
  let source = '';
  segments.forEach((segment, index) => {
    if (segment === '**') {
      // zero or more whole segments; a leading one carries its own trailing `/`
      source += index === 0 ? '(?:[^/]+/)*' : '(?:/[^/]+)*';
      return;
    }
    const afterLeadingGlobstar = index === 1 && segments[0] === '**';
    if (index > 0 && !afterLeadingGlobstar) source += '/';
    source += segmentToRegExp(segment);
  });
  return new RegExp(`^${source}$`);
}

export function compileWorkspaceGlobs(patterns: readonly string[]): WorkspaceGlobs {
  const include: RegExp[] = [];
  const exclude: RegExp[] = [];
  let maxDepth = 0;
  for (const raw of patterns) {
    const negated = raw.trim().startsWith('!');
    const pattern = normalize(negated ? raw.trim().slice(1) : raw);
    (negated ? exclude : include).push(globToRegExp(pattern));
    if (!negated) {
      const depth = pattern.includes('**') ? Number.POSITIVE_INFINITY : pattern.split('/').length;
      maxDepth = Math.max(maxDepth, pattern === '.' ? 0 : depth);
    }
  }
  return { include, exclude, maxDepth };
}

/** The candidate directories the globs select, in the order given. */
export function matchWorkspaceDirs(globs: WorkspaceGlobs, dirs: readonly string[]): string[] {
  return dirs.filter(
    (dir) => globs.include.some((re) => re.test(dir)) && !globs.exclude.some((re) => re.test(dir)),
  );
}
