import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/source-files.js';

/**
 * STYLE, Habits: "Features call each other in one direction, like floors of a house ... No
 * two feature folders import each other." The import graph between `src/features/<a>` and
 * `src/features/<b>` (type imports included) has no cycle, two-way edges included; a failure
 * prints every edge of the cycles found.
 */

const FEATURES = path.join(REPO_ROOT, 'src/features');
const SPECIFIER = /(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** `a -> b` for every import from a file of feature a of a file of feature b, with a file that does it. */
function featureEdges(): Map<string, string> {
  const edges = new Map<string, string>();
  for (const file of sourceFiles(FEATURES)) {
    const from = path.relative(FEATURES, file).split(path.sep)[0]!;
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = path.relative(FEATURES, path.resolve(path.dirname(file), match[1]!));
      if (target.startsWith('..')) continue;
      const to = target.split(path.sep)[0]!;
      if (to !== from) edges.set(`${from} -> ${to}`, path.relative(REPO_ROOT, file));
    }
  }
  return edges;
}

/** The edges that lie on a cycle: b reaches a again after a -> b. */
function edgesOnCycles(edges: Iterable<string>): string[] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    const [from, to] = edge.split(' -> ') as [string, string];
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)!.add(to);
  }
  const reaches = (start: string, goal: string) => {
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (at === goal) return true;
      if (seen.has(at)) continue;
      seen.add(at);
      stack.push(...(next.get(at) ?? []));
    }
    return false;
  };
  return [...edges].filter((edge) => {
    const [from, to] = edge.split(' -> ') as [string, string];
    return reaches(to, from);
  });
}

describe('feature folders import one way (STYLE, Habits)', () => {
  it('has no cycle between feature folders, two-way edges included', () => {
    const edges = featureEdges();
    const cyclic = edgesOnCycles(edges.keys()).map((edge) => `${edge}  (${edges.get(edge)})`);
    expect(cyclic, `feature-folder cycles:\n${cyclic.join('\n')}`).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    expect(edgesOnCycles(['a -> b', 'b -> c', 'c -> a', 'c -> d']).sort()).toEqual([
      'a -> b',
      'b -> c',
      'c -> a',
    ]);
    expect(edgesOnCycles(['a -> b', 'b -> a'])).toEqual(['a -> b', 'b -> a']);
    expect(edgesOnCycles(['a -> b', 'b -> c'])).toEqual([]);
  });
});
