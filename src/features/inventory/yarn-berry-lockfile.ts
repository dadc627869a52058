import { isMap, isScalar, LineCounter, type Node, parseDocument, type YAMLMap } from 'yaml';
import { InventoryReadError } from './inventory-errors.js';
import type { LockfileSettings } from './inventory-schema.js';
import { scalarSettings } from './parse-files.js';
import { YARN_LOCKFILE } from './yarn-classic-lockfile.js';

export interface BerryLockedDependency {
  name: string;
  specifier: string;
  line: number;
}

/** One entry of a Yarn Berry lock file; keys are descriptor lists, values YAML maps. */
export interface BerryLockEntry {
  descriptors: string[];
  line: number;
  resolution: string;
  dependencies: BerryLockedDependency[];
  peerDependencies: BerryLockedDependency[];
}

export interface BerryLockfile {
  version: string;
  settings: LockfileSettings;
  entries: BerryLockEntry[];
}

function lineOf(node: Node | null | undefined, lines: LineCounter): number {
  const offset = node?.range?.[0];
  return offset === undefined ? 0 : lines.linePos(offset).line;
}

function lockedDependencies(
  entry: YAMLMap,
  key: string,
  lines: LineCounter,
): BerryLockedDependency[] {
  const map = entry.get(key, true);
  if (!isMap(map)) return [];
  return map.items.flatMap((pair) =>
    isScalar(pair.key) && isScalar(pair.value)
      ? [
          {
            name: String(pair.key.value),
            specifier: String(pair.value.value),
            line: lineOf(pair.key, lines),
          },
        ]
      : [],
  );
}

/** Berry writes YAML; lines are kept so evidence can point at `yarn.lock:<line>`. */
export function parseYarnBerryLockfile(text: string): BerryLockfile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  const error = document.errors[0];
  if (error) {
    throw new InventoryReadError(
      YARN_LOCKFILE,
      `is not valid YAML (${error.message.split('\n')[0]})`,
    );
  }
  if (!isMap(document.contents))
    throw new InventoryReadError(YARN_LOCKFILE, 'is not a YAML mapping');
  let metadata: Record<string, unknown> = {};
  const entries: BerryLockEntry[] = [];
  for (const pair of document.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!isMap(pair.value)) continue;
    if (key === '__metadata') {
      metadata = pair.value.toJSON() as Record<string, unknown>;
      continue;
    }
    entries.push({
      descriptors: key.split(',').map((descriptor) => descriptor.trim()),
      line: lineOf(pair.key as Node, lines),
      resolution: String(pair.value.get('resolution') ?? ''),
      dependencies: lockedDependencies(pair.value, 'dependencies', lines),
      peerDependencies: lockedDependencies(pair.value, 'peerDependencies', lines),
    });
  }
  const { version, ...settings } = metadata;
  return { version: String(version ?? 'unknown'), settings: scalarSettings(settings), entries };
}
