import { parse as parseYaml } from 'yaml';
import { InventoryReadError } from './inventory-errors.js';
import type { LockfileSettings } from './inventory-schema.js';

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function parseJsonObject(file: string, text: string): PlainObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InventoryReadError(file, `is not valid JSON (${(error as Error).message})`);
  }
  if (!isPlainObject(value)) throw new InventoryReadError(file, 'is not a JSON object');
  return value;
}

/** An empty YAML file is an empty object, as pnpm reads an empty pnpm-workspace.yaml. */
export function parseYamlObject(file: string, text: string): PlainObject {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    const firstLine = (error as Error).message.split('\n')[0];
    throw new InventoryReadError(file, `is not valid YAML (${firstLine})`);
  }
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) throw new InventoryReadError(file, 'is not a YAML mapping');
  return value;
}

/** Lock settings as the spec allows them: scalar values only. */
export function scalarSettings(value: unknown): LockfileSettings {
  const settings: LockfileSettings = {};
  if (!isPlainObject(value)) return settings;
  for (const [key, setting] of Object.entries(value)) {
    if (setting === null || ['boolean', 'string', 'number'].includes(typeof setting)) {
      settings[key] = setting as LockfileSettings[string];
    }
  }
  return settings;
}

/** The string-valued entries of a name → specifier map; anything else is ignored. */
export function stringEntries(value: unknown): Array<[string, string]> {
  if (!isPlainObject(value)) return [];
  return Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
}

// Managers resolve conflicted lock files themselves; we only report them (git's markers, column 0).
const MERGE_CONFLICT = /^(<{7}|>{7})(?: |$)/m;

export function hasMergeConflict(text: string): boolean {
  return MERGE_CONFLICT.test(text);
}
