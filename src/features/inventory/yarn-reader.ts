import { lineRef } from './evidence-refs.js';
import {
  attachImporters,
  compareImporters,
  type DriftRules,
  type LockedImporter,
} from './importer-drift.js';
import { emptyFacts, lockfileMergeConflict, lockfileMissing } from './lockfile-blockers.js';
import { discoverWorkspaceDirs, readManifests, workspacePatterns } from './package-manifest.js';
import { hasMergeConflict, parseJsonObject } from './parse-files.js';
import type {
  LockfileDriftEntries,
  LockfileFacts,
  ManagerCommands,
  PackageManager,
  WorkspaceFiles,
  WorkspaceManifest,
  WorkspaceReader,
  WorkspaceSet,
} from './workspace-set.js';
import { type BerryLockfile, parseYarnBerryLockfile } from './yarn-berry-lockfile.js';
import { compareClassicLockfile } from './yarn-classic-drift.js';
import { parseYarnClassicLockfile, YARN_LOCKFILE } from './yarn-classic-lockfile.js';

const CLASSIC_COMMANDS: ManagerCommands = {
  // Yarn 1 has no lock-only mode: the install rewrites yarn.lock
  syncLockfile: 'yarn install',
  verifyLockfile: 'yarn install --frozen-lockfile',
};

const BERRY_COMMANDS: ManagerCommands = {
  syncLockfile: 'yarn install --mode=update-lockfile',
  verifyLockfile: 'yarn install --immutable',
};

/** Berry's lock files start with `__metadata`; classic ones with the `# yarn lockfile v1` header. */
export function isBerryLockfile(text: string): boolean {
  return /^__metadata:/m.test(text);
}

interface LockAnalysis {
  workspaces: WorkspaceManifest[];
  facts: LockfileFacts;
  drift: LockfileDriftEntries;
}

function yarnReader(
  manager: PackageManager,
  commands: ManagerCommands,
  analyse: (manifests: WorkspaceManifest[], lockText: string) => LockAnalysis,
): WorkspaceReader {
  return {
    manager,
    read(files: WorkspaceFiles): WorkspaceSet {
      const rootText = files.read('package.json') ?? '{}';
      const patterns = workspacePatterns(parseJsonObject('package.json', rootText));
      const manifests = readManifests(files, discoverWorkspaceDirs(files, patterns, true));
      const manifestRefs = manifests.map((m) => m.manifestRef);
      const lockText = files.read(YARN_LOCKFILE);
      const none = { missing: [], mismatches: [], extra: [] };
      if (lockText === undefined) {
        return {
          manager,
          commands,
          sourceRefs: manifestRefs,
          workspaces: manifests,
          lockfile: emptyFacts(YARN_LOCKFILE, 'absent'),
          drift: none,
          blockers: [lockfileMissing(YARN_LOCKFILE, commands)],
        };
      }
      const base = { manager, commands, sourceRefs: [YARN_LOCKFILE, ...manifestRefs] };
      if (hasMergeConflict(lockText)) {
        return {
          ...base,
          workspaces: manifests,
          lockfile: emptyFacts(YARN_LOCKFILE, 'unknown'),
          drift: none,
          blockers: [lockfileMergeConflict(YARN_LOCKFILE, commands)],
        };
      }
      const { workspaces, facts, drift } = analyse(manifests, lockText);
      return { ...base, workspaces, lockfile: facts, drift, blockers: [] };
    },
  };
}

export const yarnClassicReader = yarnReader('yarn-classic', CLASSIC_COMMANDS, (manifests, text) => {
  const lock = parseYarnClassicLockfile(text);
  return {
    // no importers: a workspace is known to yarn.lock only through the patterns it requests
    workspaces: manifests,
    facts: {
      ...emptyFacts(YARN_LOCKFILE, lock.version),
      packageEntryCount: lock.entries.length,
    },
    drift: compareClassicLockfile(manifests, lock),
  };
});

const WORKSPACE_RESOLUTION = /^(.+)@workspace:(.+)$/;

function berryImporters(lock: BerryLockfile): LockedImporter[] {
  return lock.entries.flatMap((entry) => {
    const match = WORKSPACE_RESOLUTION.exec(entry.resolution);
    if (!match) return [];
    const locked = (section: 'dependencies' | 'peerDependencies') =>
      entry[section].map((dep) => ({
        name: dep.name,
        section,
        specifier: dep.specifier,
        ref: lineRef(YARN_LOCKFILE, dep.line),
      }));
    return [
      {
        id: entry.resolution,
        dir: match[2]!,
        ref: lineRef(YARN_LOCKFILE, entry.line),
        entries: [...locked('dependencies'), ...locked('peerDependencies')],
      },
    ];
  });
}

const BERRY_RULES: DriftRules = {
  lockedSections: ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'],
  // Berry merges dev and optional dependencies into `dependencies` (optional ones flagged in meta)
  lockSectionOf: (section) => (section === 'peerDependencies' ? section : 'dependencies'),
  // a bare range means the npm registry, which Berry spells out as `npm:<range>`
  sameSpecifier: (manifest, locked) => locked === manifest || locked === `npm:${manifest}`,
};

export const yarnBerryReader = yarnReader('yarn-berry', BERRY_COMMANDS, (manifests, text) => {
  const lock = parseYarnBerryLockfile(text);
  const importers = berryImporters(lock);
  const workspaces = attachImporters(
    manifests,
    importers,
    (workspace) => `${workspace.name ?? 'unnamed'}@workspace:${workspace.dir}`,
  );
  return {
    workspaces,
    facts: {
      ...emptyFacts(YARN_LOCKFILE, lock.version),
      importerCount: importers.length,
      packageEntryCount: lock.entries.length - importers.length,
      settings: lock.settings,
    },
    drift: compareImporters(workspaces, importers, BERRY_RULES, YARN_LOCKFILE),
  };
});
