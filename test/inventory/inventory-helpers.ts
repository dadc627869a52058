import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { buildInventoryDocument } from '../../src/features/inventory/inventory-document.js';
import type { InventoryDocument } from '../../src/features/inventory/inventory-schema.js';
import { chooseReader } from '../../src/features/inventory/read-inventory.js';
import type { WorkspaceFiles } from '../../src/features/inventory/workspace-set.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/inventory');
export const SCHEMA_FILE = path.join(
  REPO_ROOT,
  'schemas/javascript_package_inventory_v1.schema.json',
);
export const GENERATED_AT = '2026-11-22T01:02:03.000Z';

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

export function readSchemaFile(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
}

// strict mode: an unknown keyword in the committed schema is an error, not a silent no-op
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validate = ajv.compile(readSchemaFile());

/** Every document a test produces goes through this: the committed JSON Schema, via Ajv. */
export function expectValidDocument(document: unknown): asserts document is InventoryDocument {
  const valid = validate(document);
  expect(validate.errors ?? [], ajv.errorsText(validate.errors)).toEqual([]);
  expect(valid).toBe(true);
}

/** A root held in memory: paths relative and `/`-separated, as the readers see them. */
export function memoryFiles(tree: Record<string, string>): WorkspaceFiles {
  return {
    read: (relativePath) => tree[relativePath],
    packageDirs: (maxDepth) =>
      Object.keys(tree)
        .filter((file) => file.endsWith('/package.json'))
        .map((file) => file.slice(0, -'/package.json'.length))
        .filter((dir) => dir.split('/').length <= maxDepth)
        .filter(
          (dir) => !dir.split('/').some((part) => part === 'node_modules' || part.startsWith('.')),
        )
        .sort(),
  };
}

/** Reader choice, reading and building, as the route does, over an in-memory root; validated. */
export function inventoryOf(tree: Record<string, string>): InventoryDocument {
  const files = memoryFiles(tree);
  const document = buildInventoryDocument(chooseReader(files).read(files), GENERATED_AT);
  expectValidDocument(document);
  return document;
}

export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

export function rootManifest(fields: object = {}): string {
  return json({ name: 'root', private: true, ...fields });
}

export function packageManifest(name: string, fields: object = {}): string {
  return json({ name, version: '1.0.0', ...fields });
}

export function workspaceById(document: InventoryDocument, id: string) {
  const workspace = document.workspaces.find((w) => w.workspace_id === id);
  expect(workspace, `workspace ${id}`).toBeDefined();
  return workspace!;
}
