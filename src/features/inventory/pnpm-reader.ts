import { jsonPathRef } from './evidence-refs.js';
import { attachImporters, compareImporters, type DriftRules } from './importer-drift.js';
import type { SpecifierMismatch } from './inventory-schema.js';
import {
  emptyFacts,
  lockfileMergeConflict,
  lockfileMissing,
  lockfileVersionUnsupported,
} from './lockfile-blockers.js';
import { discoverWorkspaceDirs, readManifests } from './package-manifest.js';
import {
  hasMergeConflict,
  isPlainObject,
  type PlainObject,
  parseYamlObject,
  stringEntries,
} from './parse-files.js';
import { PNPM_LOCKFILE, type PnpmLockfile, parsePnpmLockfile } from './pnpm-lockfile.js';
import { type Catalogs, catalogName, resolveThroughCatalog } from './specifiers.js';
import type {
  LockfileBlocker,
  LockfileDriftEntries,
  ManagerCommands,
  WorkspaceManifest,
  WorkspaceReader,
  WorkspaceSet,
} from './workspace-set.js';

export const PNPM_WORKSPACE = 'pnpm-workspace.yaml';

const COMMANDS: ManagerCommands = {
  syncLockfile: 'pnpm install --lockfile-only',
  verifyLockfile: 'pnpm install --frozen-lockfile',
};

// @pnpm/fs.find-packages: without a `packages` list every directory is a candidate.
const DEFAULT_PATTERNS = ['.', '**'];

const RULES: DriftRules = {
  lockedSections: ['dependencies', 'devDependencies', 'optionalDependencies'],
  lockSectionOf: (section) => section,
  sameSpecifier: (manifest, locked) => manifest === locked,
  // autoInstallPeers (pnpm's default) locks a workspace's own peer dependencies as dependencies
  tolerates: (entry, workspace) =>
    workspace.dependencies.some(
      (dep) => dep.section === 'peerDependencies' && dep.name === entry.name,
    ),
};

interface CatalogDefinition {
  catalogs: Catalogs;
  refOf(catalog: string, name: string): string;
}

/** `catalog` is the default catalog; `catalogs.default` is another spelling of it. */
function readCatalogs(config: PlainObject): CatalogDefinition {
  const catalogs = new Map<string, Map<string, string>>();
  const refs = new Map<string, string>();
  const add = (catalog: string, entries: unknown, path: string[]) => {
    const byName = catalogs.get(catalog) ?? new Map<string, string>();
    for (const [name, specifier] of stringEntries(entries)) {
      byName.set(name, specifier);
      refs.set(`${catalog}\0${name}`, jsonPathRef(PNPM_WORKSPACE, ...path, name));
    }
    catalogs.set(catalog, byName);
  };
  add('default', config.catalog, ['catalog']);
  const named = isPlainObject(config.catalogs) ? config.catalogs : {};
  for (const [catalog, entries] of Object.entries(named))
    add(catalog, entries, ['catalogs', catalog]);
  return {
    catalogs,
    refOf: (catalog, name) =>
      refs.get(`${catalog}\0${name}`) ??
      jsonPathRef(PNPM_WORKSPACE, ...(catalog === 'default' ? ['catalog'] : ['catalogs', catalog])),
  };
}

function missingCatalogEntries(
  workspaces: WorkspaceManifest[],
  definition: CatalogDefinition,
): LockfileBlocker[] {
  return workspaces.flatMap((workspace) =>
    workspace.dependencies
      .filter((dep) => dep.resolvedSpecifier === undefined)
      .map((dep) => {
        const catalog = catalogName(dep.specifier) ?? 'default';
        return {
          code: 'catalog_entry_missing' as const,
          workspaceDirs: [workspace.dir],
          summary: `${workspace.dir}: ${dep.name} uses ${dep.specifier} but catalog "${catalog}" has no ${dep.name} entry`,
          evidenceRefs: [dep.ref, definition.refOf(catalog, dep.name)],
          nextAction: `Add ${dep.name} to catalog "${catalog}" in ${PNPM_WORKSPACE} (or change the specifier), then run \`${COMMANDS.syncLockfile}\``,
        };
      }),
  );
}

/** A catalog entry changed in pnpm-workspace.yaml after the lock recorded it. */
function catalogMismatches(
  workspaces: WorkspaceManifest[],
  lock: PnpmLockfile,
  definition: CatalogDefinition,
  drift: LockfileDriftEntries,
): SpecifierMismatch[] {
  const reported = new Set(
    [...drift.missing, ...drift.mismatches].map(
      (entry) => `${entry.workspace_id}\0${entry.dependency_name}`,
    ),
  );
  const mismatches: SpecifierMismatch[] = [];
  for (const workspace of workspaces) {
    if (workspace.importerRef === undefined) continue;
    for (const dep of workspace.dependencies) {
      const catalog = catalogName(dep.specifier);
      if (catalog === undefined || dep.resolvedSpecifier === undefined) continue;
      if (reported.has(`${workspace.dir}\0${dep.name}`)) continue;
      const locked = lock.catalogs?.get(catalog)?.get(dep.name);
      if (locked?.specifier === dep.resolvedSpecifier) continue;
      mismatches.push({
        workspace_id: workspace.dir,
        lockfile_importer: workspace.lockfileImporter,
        dependency_name: dep.name,
        section: dep.section,
        lockfile_section: dep.section,
        manifest_specifier: dep.resolvedSpecifier,
        lockfile_specifier: locked?.specifier ?? null,
        evidence_refs: [
          dep.ref,
          definition.refOf(catalog, dep.name),
          locked?.ref ?? jsonPathRef(PNPM_LOCKFILE, 'catalogs'),
        ],
      });
    }
  }
  return mismatches;
}

export const pnpmReader: WorkspaceReader = {
  manager: 'pnpm',
  read(files): WorkspaceSet {
    const workspaceText = files.read(PNPM_WORKSPACE);
    const config =
      workspaceText === undefined ? {} : parseYamlObject(PNPM_WORKSPACE, workspaceText);
    const patterns = Array.isArray(config.packages)
      ? config.packages.filter((item): item is string => typeof item === 'string')
      : workspaceText === undefined
        ? []
        : DEFAULT_PATTERNS;
    const definition = readCatalogs(config);
    const dirs = discoverWorkspaceDirs(files, patterns, files.read('package.json') !== undefined);
    const manifests = readManifests(files, dirs, (name, specifier) =>
      resolveThroughCatalog(definition.catalogs, name, specifier),
    );
    const sourceRefs = workspaceText === undefined ? [] : [PNPM_WORKSPACE];
    const base = { manager: 'pnpm' as const, commands: COMMANDS };
    const catalogBlockers = missingCatalogEntries(manifests, definition);
    const refs = (lockRead: boolean) => [
      ...sourceRefs,
      ...(lockRead ? [PNPM_LOCKFILE] : []),
      ...manifests.map((m) => m.manifestRef),
    ];

    const lockText = files.read(PNPM_LOCKFILE);
    const blocked = (
      blocker: LockfileBlocker,
      lockRead: boolean,
      facts = emptyFacts(PNPM_LOCKFILE, 'absent'),
    ) => ({
      ...base,
      sourceRefs: refs(lockRead),
      workspaces: manifests,
      lockfile: facts,
      drift: { missing: [], mismatches: [], extra: [] },
      blockers: [blocker, ...catalogBlockers],
    });
    if (lockText === undefined) return blocked(lockfileMissing(PNPM_LOCKFILE, COMMANDS), false);
    if (hasMergeConflict(lockText)) {
      return blocked(
        lockfileMergeConflict(PNPM_LOCKFILE, COMMANDS),
        true,
        emptyFacts(PNPM_LOCKFILE, 'unknown'),
      );
    }
    const lock = parsePnpmLockfile(lockText);
    if (!lock.supported) {
      const versionRef = jsonPathRef(PNPM_LOCKFILE, 'lockfileVersion');
      const blocker = lockfileVersionUnsupported(
        PNPM_LOCKFILE,
        versionRef,
        lock.facts.version,
        '6.0 to 9.0',
        COMMANDS,
      );
      return blocked(blocker, true, lock.facts);
    }
    const workspaces = attachImporters(manifests, lock.importers, (workspace) => workspace.dir);
    const drift = compareImporters(workspaces, lock.importers, RULES, PNPM_LOCKFILE);
    drift.mismatches.push(...catalogMismatches(workspaces, lock, definition, drift));
    return {
      ...base,
      sourceRefs: refs(true),
      workspaces,
      lockfile: lock.facts,
      drift,
      blockers: catalogBlockers,
    };
  },
};
