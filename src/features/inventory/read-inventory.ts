import { fsWorkspaceFiles } from './fs-workspace-files.js';
import { buildInventoryDocument } from './inventory-document.js';
import { InventoryReadError, WorkspaceNotFoundError } from './inventory-errors.js';
import type { InventoryDocument } from './inventory-schema.js';
import { npmReader } from './npm-reader.js';
import { parseJsonObject } from './parse-files.js';
import { PNPM_LOCKFILE } from './pnpm-lockfile.js';
import { PNPM_WORKSPACE, pnpmReader } from './pnpm-reader.js';
import type { WorkspaceFiles, WorkspaceReader } from './workspace-set.js';
import { YARN_LOCKFILE } from './yarn-classic-lockfile.js';
import { isBerryLockfile, yarnBerryReader, yarnClassicReader } from './yarn-reader.js';

/** `packageManager: "yarn@1.22.22"` → yarn, major 1. */
function declaredManager(
  rootManifestText: string | undefined,
): { name: string; major: number } | undefined {
  if (rootManifestText === undefined) return undefined;
  const field = parseJsonObject('package.json', rootManifestText).packageManager;
  const match = typeof field === 'string' ? /^(npm|pnpm|yarn)@(\d+)/.exec(field) : null;
  return match ? { name: match[1]!, major: Number(match[2]) } : undefined;
}

/**
 * Which reader describes the root. An existing lock file or workspace definition decides
 * (pnpm, then Yarn, then npm); without one, the root's `packageManager` field; else npm, the
 * manager Node ships with. A yarn.lock's own format tells Yarn classic from Berry.
 */
export function chooseReader(files: WorkspaceFiles): WorkspaceReader {
  const rootText = files.read('package.json');
  if (rootText === undefined && files.read(PNPM_WORKSPACE) === undefined) {
    throw new WorkspaceNotFoundError('.');
  }
  if (files.read(PNPM_WORKSPACE) !== undefined || files.read(PNPM_LOCKFILE) !== undefined)
    return pnpmReader;
  const yarnLock = files.read(YARN_LOCKFILE);
  if (yarnLock !== undefined)
    return isBerryLockfile(yarnLock) ? yarnBerryReader : yarnClassicReader;
  if (
    files.read('package-lock.json') !== undefined ||
    files.read('npm-shrinkwrap.json') !== undefined
  ) {
    return npmReader;
  }
  const declared = declaredManager(rootText);
  if (declared?.name === 'pnpm') return pnpmReader;
  if (declared?.name === 'yarn') return declared.major === 1 ? yarnClassicReader : yarnBerryReader;
  return npmReader;
}

export type InventoryOutcome =
  | { ok: true; document: InventoryDocument }
  | { ok: false; reason: 'not_found' | 'unreadable'; detail: string };

/**
 * Reads the root and builds the document. Read-only: no install, no network, no write.
 * A missing root or one without package.json/pnpm-workspace.yaml is `not_found`; a file that
 * exists but cannot be read or parsed is `unreadable` (a lock file with merge conflict
 * markers is not: that is a `blocked` document).
 */
export function readInventory(root: string, now: () => Date = () => new Date()): InventoryOutcome {
  const files = fsWorkspaceFiles(root);
  try {
    const set = chooseReader(files).read(files);
    if (set.workspaces.length === 0) throw new WorkspaceNotFoundError(root);
    return { ok: true, document: buildInventoryDocument(set, now().toISOString()) };
  } catch (error) {
    if (error instanceof WorkspaceNotFoundError) {
      return { ok: false, reason: 'not_found', detail: `No JavaScript workspace found in ${root}` };
    }
    if (error instanceof InventoryReadError)
      return { ok: false, reason: 'unreadable', detail: error.message };
    throw error;
  }
}
