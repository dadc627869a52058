import { jsonPathRef } from './evidence-refs.js';
import type { LockedEntry, LockedImporter } from './importer-drift.js';
import type { DependencySection } from './inventory-schema.js';
import { isPlainObject, type PlainObject, parseYamlObject, scalarSettings } from './parse-files.js';
import type { LockfileFacts } from './workspace-set.js';

export const PNPM_LOCKFILE = 'pnpm-lock.yaml';

// pnpm 8 wrote 6.0 (inline specifiers), pnpm 9 and 10 write 9.0 (packages split from snapshots);
// 5.x kept specifiers in a separate map and is no longer written by any supported pnpm.
const SUPPORTED_MAJORS = [6, 7, 8, 9];

const IMPORTER_SECTIONS: readonly DependencySection[] = [
  'dependencies',
  'devDependencies',
  'optionalDependencies',
];

export interface LockedCatalogEntry {
  specifier: string;
  ref: string;
}

export interface PnpmLockfile {
  facts: LockfileFacts;
  supported: boolean;
  importers: LockedImporter[];
  /** The lock's `catalogs` section; undefined when the lock has none (before lockfile 9.0). */
  catalogs: Map<string, Map<string, LockedCatalogEntry>> | undefined;
}

function sizeOf(value: unknown): number {
  return isPlainObject(value) ? Object.keys(value).length : 0;
}

function lockedEntries(importer: PlainObject, path: string[]): LockedEntry[] {
  const entries: LockedEntry[] = [];
  for (const section of IMPORTER_SECTIONS) {
    const deps = importer[section];
    if (!isPlainObject(deps)) continue;
    for (const [name, locked] of Object.entries(deps)) {
      // 6.0+ records `{ specifier, version }`; a bare string is a version without its specifier
      const specifier = isPlainObject(locked) ? String(locked.specifier ?? '') : '';
      entries.push({
        name,
        section,
        specifier,
        ref: jsonPathRef(PNPM_LOCKFILE, ...path, section, name),
      });
    }
  }
  return entries;
}

function readImporters(lock: PlainObject): LockedImporter[] {
  if (!isPlainObject(lock.importers)) {
    // a single project without pnpm-workspace.yaml: the root importer is the document itself
    return [
      { id: '.', dir: '.', ref: jsonPathRef(PNPM_LOCKFILE), entries: lockedEntries(lock, []) },
    ];
  }
  return Object.entries(lock.importers).map(([id, importer]) => ({
    id,
    dir: id,
    ref: jsonPathRef(PNPM_LOCKFILE, 'importers', id),
    entries: isPlainObject(importer) ? lockedEntries(importer, ['importers', id]) : [],
  }));
}

function readCatalogs(lock: PlainObject): PnpmLockfile['catalogs'] {
  if (!isPlainObject(lock.catalogs)) return undefined;
  const catalogs = new Map<string, Map<string, LockedCatalogEntry>>();
  for (const [catalog, entries] of Object.entries(lock.catalogs)) {
    const byName = new Map<string, LockedCatalogEntry>();
    for (const [name, entry] of Object.entries(isPlainObject(entries) ? entries : {})) {
      const specifier = isPlainObject(entry) ? String(entry.specifier ?? '') : '';
      byName.set(name, { specifier, ref: jsonPathRef(PNPM_LOCKFILE, 'catalogs', catalog, name) });
    }
    catalogs.set(catalog, byName);
  }
  return catalogs;
}

/** Counts and importers of pnpm-lock.yaml, straight from the file. */
export function parsePnpmLockfile(text: string): PnpmLockfile {
  const lock = parseYamlObject(PNPM_LOCKFILE, text);
  const version = lock.lockfileVersion === undefined ? 'unknown' : String(lock.lockfileVersion);
  const supported = SUPPORTED_MAJORS.includes(Number.parseInt(version, 10));
  const importers = supported ? readImporters(lock) : [];
  return {
    facts: {
      ref: PNPM_LOCKFILE,
      version,
      importerCount: isPlainObject(lock.importers) ? sizeOf(lock.importers) : importers.length,
      packageEntryCount: sizeOf(lock.packages),
      snapshotEntryCount: sizeOf(lock.snapshots),
      settings: scalarSettings(lock.settings),
    },
    supported,
    importers,
    catalogs: supported ? readCatalogs(lock) : undefined,
  };
}
