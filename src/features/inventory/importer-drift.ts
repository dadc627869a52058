import { jsonPathRef } from './evidence-refs.js';
import type {
  DependencySection,
  ExtraInLockfile,
  MissingInLockfile,
  SpecifierMismatch,
} from './inventory-schema.js';
import type {
  LockfileDriftEntries,
  ManifestDependency,
  WorkspaceManifest,
} from './workspace-set.js';

/** One dependency as a lock importer records it. */
export interface LockedEntry {
  name: string;
  section: DependencySection;
  specifier: string;
  ref: string;
}

/** A lock file's record of one workspace (pnpm importer, npm `packages` key, Berry workspace entry). */
export interface LockedImporter {
  id: string;
  dir: string;
  ref: string;
  entries: LockedEntry[];
}

/** How a manager's lock importer mirrors a manifest. */
export interface DriftRules {
  /** Manifest sections the importer records. */
  lockedSections: readonly DependencySection[];
  /** The importer section a manifest section lands in. */
  lockSectionOf(section: DependencySection): DependencySection;
  sameSpecifier(manifestSpecifier: string, lockedSpecifier: string): boolean;
  /** An importer entry that no locked manifest section declares, yet is legitimate. */
  tolerates?(entry: LockedEntry, workspace: WorkspaceManifest): boolean;
  /** An importer that belongs to no workspace, yet is legitimate (npm `file:` targets). */
  expectsImporter?(importer: LockedImporter): boolean;
}

/** Points each workspace at its importer: the id used, and where the lock records it. */
export function attachImporters(
  workspaces: WorkspaceManifest[],
  importers: readonly LockedImporter[],
  idFor: (workspace: WorkspaceManifest) => string,
): WorkspaceManifest[] {
  const byDir = new Map(importers.map((importer) => [importer.dir, importer]));
  return workspaces.map((workspace) => {
    const importer = byDir.get(workspace.dir);
    return {
      ...workspace,
      lockfileImporter: importer?.id ?? idFor(workspace),
      importerRef: importer?.ref,
    };
  });
}

function mismatch(
  workspace: WorkspaceManifest,
  dependency: ManifestDependency,
  locked: LockedEntry,
): SpecifierMismatch {
  return {
    workspace_id: workspace.dir,
    lockfile_importer: workspace.lockfileImporter,
    dependency_name: dependency.name,
    section: dependency.section,
    lockfile_section: locked.section,
    manifest_specifier: dependency.specifier,
    lockfile_specifier: locked.specifier,
    evidence_refs: [dependency.ref, locked.ref],
  };
}

function compareWorkspace(
  workspace: WorkspaceManifest,
  importer: LockedImporter,
  rules: DriftRules,
  drift: LockfileDriftEntries,
): void {
  const declared = workspace.dependencies.filter((dep) =>
    rules.lockedSections.includes(dep.section),
  );
  const lockSection = (dep: ManifestDependency) => rules.lockSectionOf(dep.section);
  for (const dependency of declared) {
    const sameName = importer.entries.filter((entry) => entry.name === dependency.name);
    const locked = sameName.find((entry) => entry.section === lockSection(dependency));
    if (locked) {
      if (!rules.sameSpecifier(dependency.specifier, locked.specifier)) {
        drift.mismatches.push(mismatch(workspace, dependency, locked));
      }
    } else if (sameName[0]) {
      // moved between sections: the lock still installs it, under the wrong flags
      drift.mismatches.push(mismatch(workspace, dependency, sameName[0]));
    } else {
      drift.missing.push({
        kind: 'dependency',
        workspace_id: workspace.dir,
        lockfile_importer: workspace.lockfileImporter,
        dependency_name: dependency.name,
        section: dependency.section,
        manifest_specifier: dependency.specifier,
        evidence_refs: [dependency.ref, importer.ref],
      });
    }
  }
  for (const entry of importer.entries) {
    const named = declared.filter((dep) => dep.name === entry.name);
    if (named.some((dep) => lockSection(dep) === entry.section)) continue;
    if (named.length > 0 || rules.tolerates?.(entry, workspace)) continue;
    drift.extra.push({
      kind: 'dependency',
      workspace_id: workspace.dir,
      lockfile_importer: importer.id,
      dependency_name: entry.name,
      section: entry.section,
      lockfile_specifier: entry.specifier,
      evidence_refs: [entry.ref, jsonPathRef(workspace.manifestRef, entry.section)],
    });
  }
}

/** Drift between manifests and lock importers: missing, mismatched and extra entries. */
export function compareImporters(
  workspaces: readonly WorkspaceManifest[],
  importers: readonly LockedImporter[],
  rules: DriftRules,
  lockfileRef: string,
): LockfileDriftEntries {
  const drift: LockfileDriftEntries = { missing: [], mismatches: [], extra: [] };
  const byDir = new Map(importers.map((importer) => [importer.dir, importer]));
  for (const workspace of workspaces) {
    const importer = byDir.get(workspace.dir);
    if (importer) {
      compareWorkspace(workspace, importer, rules, drift);
      continue;
    }
    const missing: MissingInLockfile = {
      kind: 'importer',
      workspace_id: workspace.dir,
      lockfile_importer: workspace.lockfileImporter,
      dependency_name: null,
      section: null,
      manifest_specifier: null,
      evidence_refs: [workspace.manifestRef, lockfileRef],
    };
    drift.missing.push(missing);
  }
  const workspaceDirs = new Set(workspaces.map((workspace) => workspace.dir));
  for (const importer of importers) {
    if (workspaceDirs.has(importer.dir) || rules.expectsImporter?.(importer)) continue;
    const extra: ExtraInLockfile = {
      kind: 'importer',
      workspace_id: null,
      lockfile_importer: importer.id,
      dependency_name: null,
      section: null,
      lockfile_specifier: null,
      evidence_refs: [importer.ref],
    };
    drift.extra.push(extra);
  }
  return drift;
}
