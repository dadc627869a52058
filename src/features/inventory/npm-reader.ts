import path from 'node:path';
import { jsonPathRef } from './evidence-refs.js';
import {
  attachImporters,
  compareImporters,
  type DriftRules,
  type LockedEntry,
  type LockedImporter,
} from './importer-drift.js';
import { DEPENDENCY_SECTIONS } from './inventory-schema.js';
import {
  emptyFacts,
  lockfileMergeConflict,
  lockfileMissing,
  lockfileVersionUnsupported,
} from './lockfile-blockers.js';
import { discoverWorkspaceDirs, readManifests, workspacePatterns } from './package-manifest.js';
import {
  hasMergeConflict,
  isPlainObject,
  type PlainObject,
  parseJsonObject,
  scalarSettings,
} from './parse-files.js';
import type {
  LockfileBlocker,
  LockfileFacts,
  ManagerCommands,
  WorkspaceManifest,
  WorkspaceReader,
  WorkspaceSet,
} from './workspace-set.js';

const COMMANDS: ManagerCommands = {
  syncLockfile: 'npm install --package-lock-only',
  verifyLockfile: 'npm ci',
};

// npm reads npm-shrinkwrap.json instead of package-lock.json when both exist.
const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json'];

function isInstalledPackageKey(key: string): boolean {
  return key.startsWith('node_modules/') || key.includes('/node_modules/');
}

function lockedEntries(lockRef: string, key: string, entry: PlainObject): LockedEntry[] {
  return DEPENDENCY_SECTIONS.flatMap((section) =>
    Object.entries(isPlainObject(entry[section]) ? entry[section] : {}).map(
      ([name, specifier]) => ({
        name,
        section,
        specifier: String(specifier),
        ref: jsonPathRef(lockRef, 'packages', key, section, name),
      }),
    ),
  );
}

/** `packages[""]` is the root and every key outside node_modules a workspace (or a `file:` target). */
function readImporters(lockRef: string, packages: PlainObject): LockedImporter[] {
  return Object.entries(packages)
    .filter(([key]) => !isInstalledPackageKey(key))
    .map(([key, entry]) => ({
      id: key === '' ? '.' : key,
      dir: key === '' ? '.' : key,
      ref: jsonPathRef(lockRef, 'packages', key),
      entries: isPlainObject(entry) ? lockedEntries(lockRef, key, entry) : [],
    }));
}

// Top-level keys of package-lock.json that are data, not settings (what remains: `requires`).
const NOT_SETTINGS = ['name', 'version', 'lockfileVersion', 'packages', 'dependencies'];

function lockFacts(
  lockRef: string,
  lock: PlainObject,
  packages: PlainObject,
  importers: number,
): LockfileFacts {
  const settings = Object.entries(lock).filter(([key]) => !NOT_SETTINGS.includes(key));
  const installed = Object.entries(packages).filter(
    ([key, entry]) => isInstalledPackageKey(key) && !(isPlainObject(entry) && entry.link === true),
  );
  return {
    ref: lockRef,
    version: String(lock.lockfileVersion ?? 'unknown'),
    importerCount: importers,
    packageEntryCount: installed.length,
    // npm has no per-peer-context snapshots; its v2 `dependencies` tree repeats `packages`
    snapshotEntryCount: 0,
    settings: scalarSettings(Object.fromEntries(settings)),
  };
}

/** Directories that manifests reach with `file:`: npm locks them like workspaces. */
function fileTargets(workspaces: readonly WorkspaceManifest[]): Set<string> {
  return new Set(
    workspaces.flatMap((workspace) =>
      workspace.dependencies
        .filter((dep) => dep.specifier.startsWith('file:'))
        .map((dep) => path.posix.normalize(path.posix.join(workspace.dir, dep.specifier.slice(5)))),
    ),
  );
}

export const npmReader: WorkspaceReader = {
  manager: 'npm',
  read(files): WorkspaceSet {
    const rootText = files.read('package.json') ?? '{}';
    const patterns = workspacePatterns(parseJsonObject('package.json', rootText));
    const manifests = readManifests(files, discoverWorkspaceDirs(files, patterns, true));
    const found = LOCKFILES.map((file) => ({ file, text: files.read(file) })).find(
      (lock) => lock.text !== undefined,
    );
    const lockRef = found?.file ?? 'package-lock.json';
    const lockText = found?.text;
    const manifestRefs = manifests.map((m) => m.manifestRef);
    const base = { manager: 'npm' as const, commands: COMMANDS, workspaces: manifests };
    const blocked = (blocker: LockfileBlocker, facts: LockfileFacts): WorkspaceSet => ({
      ...base,
      sourceRefs: lockText === undefined ? manifestRefs : [lockRef, ...manifestRefs],
      lockfile: facts,
      drift: { missing: [], mismatches: [], extra: [] },
      blockers: [blocker],
    });
    if (lockText === undefined)
      return blocked(lockfileMissing(lockRef, COMMANDS), emptyFacts(lockRef, 'absent'));
    if (hasMergeConflict(lockText)) {
      return blocked(lockfileMergeConflict(lockRef, COMMANDS), emptyFacts(lockRef, 'unknown'));
    }
    const lock = parseJsonObject(lockRef, lockText);
    const version = Number(lock.lockfileVersion);
    // version 1 has no `packages` map: only the nested tree, without workspaces
    if (!(version === 2 || version === 3) || !isPlainObject(lock.packages)) {
      const versionRef = jsonPathRef(lockRef, 'lockfileVersion');
      const blocker = lockfileVersionUnsupported(
        lockRef,
        versionRef,
        String(lock.lockfileVersion),
        '2 and 3',
        COMMANDS,
      );
      return blocked(blocker, {
        ...emptyFacts(lockRef, String(lock.lockfileVersion ?? 'unknown')),
      });
    }
    const importers = readImporters(lockRef, lock.packages);
    const workspaces = attachImporters(manifests, importers, (workspace) => workspace.dir);
    const targets = fileTargets(workspaces);
    const rules: DriftRules = {
      lockedSections: DEPENDENCY_SECTIONS,
      lockSectionOf: (section) => section,
      sameSpecifier: (manifest, locked) => manifest === locked,
      expectsImporter: (importer) => targets.has(importer.dir),
    };
    return {
      ...base,
      workspaces,
      sourceRefs: [lockRef, ...manifestRefs],
      lockfile: lockFacts(lockRef, lock, lock.packages, importers.length),
      drift: compareImporters(workspaces, importers, rules, lockRef),
      blockers: [],
    };
  },
};
