import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { inventorySchemaFile } from '../../src/features/inventory/inventory-schema.js';
import { readInventory } from '../../src/features/inventory/read-inventory.js';
import { fixture, GENERATED_AT, readSchemaFile } from './inventory-helpers.js';

type Schema = Record<string, unknown>;

const REMOVE = Symbol('remove the key');

/** Every subschema of the file, with the JSON path that leads to it. */
function subschemas(schema: unknown, at = '$'): Array<[string, Schema]> {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as Schema;
  const children = Object.entries(node).flatMap(([key, value]) => {
    if (key === 'properties') {
      return Object.entries(value as Schema).flatMap(([name, sub]) =>
        subschemas(sub, `${at}.${name}`),
      );
    }
    if (Array.isArray(value))
      return value.flatMap((sub, i) => subschemas(sub, `${at}.${key}[${i}]`));
    if (['items', 'additionalProperties'].includes(key)) return subschemas(value, `${at}.${key}`);
    return [];
  });
  return [[at, node], ...children];
}

function documentOf(name: string) {
  const outcome = readInventory(fixture(name), () => new Date(GENERATED_AT));
  if (!outcome.ok) throw new Error(outcome.detail);
  return outcome.document;
}

describe('schemas/javascript_package_inventory_v1.schema.json', () => {
  const file = readSchemaFile();
  const validate = new Ajv2020({ strict: true }).compile(file);

  it('is the document schema the service serves (regenerate: npm run inventory -- --schema)', () => {
    expect(file).toEqual(inventorySchemaFile());
    expect(file.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('closes every object with named keys; the settings map constrains its values', () => {
    const objects = subschemas(file).filter(([, node]) => node.type === 'object');
    for (const [at, node] of objects) {
      if (node.properties) expect(node.additionalProperties, at).toBe(false);
      else expect(node.additionalProperties, at).toMatchObject({ anyOf: expect.any(Array) });
    }
    expect(objects.filter(([, node]) => !node.properties).map(([at]) => at)).toEqual([
      '$.lockfile_summary.settings',
    ]);
  });

  const clean = documentOf('pnpm-catalog');
  const drifted = documentOf('pnpm-catalog-drifted');

  it.each<[string, Array<string | number>, unknown]>([
    ['an extra top-level key', ['extra'], 1],
    ['an extra key in a workspace', ['workspaces', 0, 'extra'], 1],
    ['an extra key in a drift entry', ['lockfile_drift', 'missing_in_lockfile', 0, 'extra'], 1],
    ['an extra key in a finding', ['drift_findings', 0, 'extra'], 1],
    ['a missing required key', ['rollups', 'by_status'], REMOVE],
    ['another schema_version', ['schema_version'], 'javascript_package_inventory_v2'],
    ['read_only_mode false', ['program_status', 'read_only_mode'], false],
    ['a completion above 100', ['program_status', 'overall_completion_percent'], 101],
    ['priority P4', ['program_status', 'current_priority'], 'P4'],
    ['write_allowed true', ['lockfile_summary', 'write_allowed'], true],
    ['a negative count', ['rollups', 'total_workspaces'], -1],
    ['a fractional count', ['lockfile_summary', 'importer_count'], 1.5],
    ['an object-valued setting', ['lockfile_summary', 'settings', 'nested'], {}],
    ['an unknown lockfile status', ['lockfile_drift', 'status'], 'stale'],
    ['an unknown workspace status', ['workspaces', 0, 'status'], 'done'],
    ['an unknown severity', ['drift_findings', 0, 'severity'], 'urgent'],
    ['empty evidence refs', ['drift_findings', 0, 'evidence_refs'], []],
    ['an empty source ref', ['source_refs'], ['']],
    ['no source refs', ['source_refs'], []],
    ['an empty task id', ['program_status', 'next_task_id'], ''],
    ['an allowed installation', ['operation_boundaries', 'package_installation_allowed'], true],
    ['a forbidden read-only API', ['operation_boundaries', 'read_only_api_allowed'], false],
    ['an allowed paid API call', ['approval_boundaries', 'paid_api_call_allowed'], true],
  ])('rejects %s', (_what, path, value) => {
    expect(validate(clean)).toBe(true);
    expect(validate(drifted)).toBe(true);
    type Node = Record<string | number, unknown>;
    const document = structuredClone(drifted) as unknown as Node;
    const parent = path.slice(0, -1).reduce<Node>((node, step) => node[step] as Node, document);
    const key = path.at(-1)!;
    if (value === REMOVE) delete parent[key];
    else parent[key] = value;
    expect(validate(document)).toBe(false);
  });
});
