import { fileIn, jsonPathRef } from './evidence-refs.js';
import { InventoryReadError } from './inventory-errors.js';
import { DEPENDENCY_SECTIONS } from './inventory-schema.js';
import { isPlainObject, type PlainObject, parseJsonObject, stringEntries } from './parse-files.js';
import { compileWorkspaceGlobs, matchWorkspaceDirs } from './workspace-globs.js';
import type { ManifestDependency, WorkspaceFiles, WorkspaceManifest } from './workspace-set.js';

/** Resolves a `catalog:` specifier; other specifiers pass through unchanged. */
export type SpecifierResolver = (name: string, specifier: string) => string | undefined;

const asIs: SpecifierResolver = (_name, specifier) => specifier;

export interface ParsedManifest {
  manifest: WorkspaceManifest;
  raw: PlainObject;
}

export function parseManifest(
  dir: string,
  text: string,
  resolve: SpecifierResolver = asIs,
): ParsedManifest {
  const manifestRef = fileIn(dir, 'package.json');
  const raw = parseJsonObject(manifestRef, text);
  const dependencies: ManifestDependency[] = [];
  for (const section of DEPENDENCY_SECTIONS) {
    for (const [name, specifier] of stringEntries(raw[section])) {
      dependencies.push({
        name,
        section,
        specifier,
        resolvedSpecifier: resolve(name, specifier),
        ref: jsonPathRef(manifestRef, section, name),
      });
    }
  }
  const manifest: WorkspaceManifest = {
    dir,
    manifestRef,
    name: typeof raw.name === 'string' && raw.name ? raw.name : null,
    private: typeof raw.private === 'boolean' ? raw.private : null,
    packageManager: typeof raw.packageManager === 'string' ? raw.packageManager : null,
    dependencies,
    lockfileImporter: dir,
    importerRef: undefined,
  };
  return { manifest, raw };
}

/** Reads each workspace's package.json; the root first, then by directory. */
export function readManifests(
  files: WorkspaceFiles,
  dirs: readonly string[],
  resolve: SpecifierResolver = asIs,
): WorkspaceManifest[] {
  const unique = [...new Set(dirs)].sort((a, b) =>
    a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : 1,
  );
  return unique.map((dir) => {
    const file = fileIn(dir, 'package.json');
    const text = files.read(file);
    if (text === undefined) throw new InventoryReadError(file, 'disappeared while being read');
    return parseManifest(dir, text, resolve).manifest;
  });
}

/** npm and Yarn: `workspaces` as an array, or Yarn classic's `{ packages: [...] }`. */
export function workspacePatterns(rootManifest: PlainObject): string[] {
  const field = rootManifest.workspaces;
  const list = isPlainObject(field) ? field.packages : field;
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

/** The root (when it has a package.json) and every directory the workspace globs select. */
export function discoverWorkspaceDirs(
  files: WorkspaceFiles,
  patterns: readonly string[],
  rootHasManifest: boolean,
): string[] {
  const globs = compileWorkspaceGlobs(patterns);
  const found =
    globs.include.length > 0 ? matchWorkspaceDirs(globs, files.packageDirs(globs.maxDepth)) : [];
  return [...(rootHasManifest ? ['.'] : []), ...found.filter((dir) => dir !== '.')];
}
