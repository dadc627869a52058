import type {
  DependencySection,
  ExtraInLockfile,
  LockfileSettings,
  MissingInLockfile,
  SpecifierMismatch,
} from './inventory-schema.js';

/** The one interface in front of every package manager: what a reader makes of a root. */
export type PackageManager = 'pnpm' | 'npm' | 'yarn-classic' | 'yarn-berry';

/** Read access to the inventoried root. Paths are relative and `/`-separated. */
export interface WorkspaceFiles {
  /** The file's text, or undefined when it does not exist; throws when it cannot be read. */
  read(relativePath: string): string | undefined;
  /** Directories below the root holding a package.json, skipping node_modules and dot dirs. */
  packageDirs(maxDepth: number): string[];
}

export interface ManifestDependency {
  name: string;
  section: DependencySection;
  specifier: string;
  /** The specifier after `catalog:` resolution; undefined when the catalog has no such entry. */
  resolvedSpecifier: string | undefined;
  ref: string;
}

export interface WorkspaceManifest {
  /** `.` for the root, else the directory relative to the root. */
  dir: string;
  manifestRef: string;
  name: string | null;
  private: boolean | null;
  packageManager: string | null;
  dependencies: ManifestDependency[];
  /** The importer id the lock file uses (or would use) for this workspace. */
  lockfileImporter: string;
  /** Where the lock file records this workspace; undefined when it does not. */
  importerRef: string | undefined;
}

/** A problem that stops the lock file from being compared or regenerated as it is. */
export interface LockfileBlocker {
  code:
    | 'lockfile_missing'
    | 'lockfile_version_unsupported'
    | 'lockfile_merge_conflict'
    | 'catalog_entry_missing';
  /** The workspaces it blocks; empty means every workspace. */
  workspaceDirs: string[];
  summary: string;
  evidenceRefs: string[];
  nextAction: string;
}

export interface LockfileFacts {
  ref: string;
  version: string;
  importerCount: number;
  packageEntryCount: number;
  snapshotEntryCount: number;
  settings: LockfileSettings;
}

export interface LockfileDriftEntries {
  missing: MissingInLockfile[];
  mismatches: SpecifierMismatch[];
  extra: ExtraInLockfile[];
}

/** Commands the findings point to; the service itself never runs them. */
export interface ManagerCommands {
  syncLockfile: string;
  verifyLockfile: string;
}

/** Everything a reader found, as plain data: the input of the document builder. */
export interface WorkspaceSet {
  manager: PackageManager;
  commands: ManagerCommands;
  sourceRefs: string[];
  /** The root first, then by directory. */
  workspaces: WorkspaceManifest[];
  lockfile: LockfileFacts;
  drift: LockfileDriftEntries;
  blockers: LockfileBlocker[];
}

export interface WorkspaceReader {
  readonly manager: PackageManager;
  read(files: WorkspaceFiles): WorkspaceSet;
}
