import { lineRef } from './evidence-refs.js';
import type {
  LockfileDriftEntries,
  ManifestDependency,
  WorkspaceManifest,
} from './workspace-set.js';
import {
  type ClassicLockEntry,
  type ClassicLockfile,
  patternName,
  YARN_LOCKFILE,
} from './yarn-classic-lockfile.js';

/** Yarn classic installs these from the registry and locks them as `name@specifier`. */
function lockedByYarn(dependency: ManifestDependency, workspaceNames: Set<string>): boolean {
  if (dependency.section === 'peerDependencies') return false; // classic never installs peers
  if (workspaceNames.has(dependency.name)) return false; // symlinked, not locked
  return !/^(link|workspace|portal):/.test(dependency.specifier);
}

/** Every pattern the roots reach through the lock entries' own dependencies. */
function reachablePatterns(roots: string[], entryOf: Map<string, ClassicLockEntry>): Set<string> {
  const reached = new Set<string>();
  const queue = [...roots];
  for (let pattern = queue.pop(); pattern !== undefined; pattern = queue.pop()) {
    if (reached.has(pattern)) continue;
    reached.add(pattern);
    queue.push(...(entryOf.get(pattern)?.requests ?? []));
  }
  return reached;
}

/**
 * Yarn classic records no workspaces: its lock is a set of `name@range` patterns. A manifest
 * dependency is missing when no pattern for it exists; a mismatch when the lock still holds a
 * pattern for that name that nothing reaches any more (the old specifier); a lock entry that no
 * manifest reaches, directly or through other entries, is extra.
 */
export function compareClassicLockfile(
  workspaces: readonly WorkspaceManifest[],
  lock: ClassicLockfile,
): LockfileDriftEntries {
  const drift: LockfileDriftEntries = { missing: [], mismatches: [], extra: [] };
  const workspaceNames = new Set(
    workspaces.flatMap((workspace) => (workspace.name ? [workspace.name] : [])),
  );
  const declared = workspaces.flatMap((workspace) =>
    workspace.dependencies
      .filter((dependency) => lockedByYarn(dependency, workspaceNames))
      .map((dependency) => ({
        workspace,
        dependency,
        pattern: `${dependency.name}@${dependency.specifier}`,
      })),
  );
  const entryOf = new Map<string, ClassicLockEntry>();
  for (const entry of lock.entries)
    for (const pattern of entry.patterns) entryOf.set(pattern, entry);
  const reached = reachablePatterns(
    declared.map((d) => d.pattern),
    entryOf,
  );
  const stale = (pattern: string) => !reached.has(pattern);
  const explained = new Set<ClassicLockEntry>();

  for (const { workspace, dependency, pattern } of declared) {
    if (entryOf.has(pattern)) continue;
    const previous = [...entryOf.entries()].find(
      ([candidate]) => patternName(candidate) === dependency.name && stale(candidate),
    );
    if (previous) {
      const [oldPattern, entry] = previous;
      explained.add(entry);
      drift.mismatches.push({
        workspace_id: workspace.dir,
        lockfile_importer: workspace.lockfileImporter,
        dependency_name: dependency.name,
        section: dependency.section,
        lockfile_section: null,
        manifest_specifier: dependency.specifier,
        lockfile_specifier: oldPattern.slice(dependency.name.length + 1),
        evidence_refs: [dependency.ref, lineRef(YARN_LOCKFILE, entry.line)],
      });
      continue;
    }
    drift.missing.push({
      kind: 'dependency',
      workspace_id: workspace.dir,
      lockfile_importer: workspace.lockfileImporter,
      dependency_name: dependency.name,
      section: dependency.section,
      manifest_specifier: dependency.specifier,
      evidence_refs: [dependency.ref, YARN_LOCKFILE],
    });
  }

  // what a replaced entry pulled in is most likely still needed under the new specifier
  const kept = reachablePatterns(
    [...reached, ...[...explained].flatMap((entry) => entry.requests)],
    entryOf,
  );
  for (const entry of lock.entries) {
    if (explained.has(entry) || entry.patterns.some((pattern) => kept.has(pattern))) continue;
    const name = patternName(entry.patterns[0] ?? '');
    drift.extra.push({
      kind: 'package',
      workspace_id: null,
      lockfile_importer: null,
      dependency_name: name || null,
      section: null,
      lockfile_specifier: entry.patterns
        .map((pattern) => pattern.slice(name.length + 1))
        .join(', '),
      evidence_refs: [lineRef(YARN_LOCKFILE, entry.line)],
    });
  }
  return drift;
}
