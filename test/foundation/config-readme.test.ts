import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configVariables } from '../../src/config.js';

interface Row {
  names: string[];
  default: string;
  meaning: string;
}

/** The rows of the table under `## Configuration`; a row may name several variables. */
function configurationRows(readme: string): Row[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Configuration\n'));
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const lines = section.split('\n').filter((line) => line.startsWith('|'));
  const [header, rule, ...body] = lines;
  expect(header).toBe('| variable | default | meaning |');
  expect(rule).toBe('|---|---|---|');
  return body.map((line) => {
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    expect(cells, line).toHaveLength(3);
    const [names = '', fallback = '', meaning = ''] = cells;
    expect(names, line).toMatch(/^`[A-Z][A-Z0-9_]*`(, `[A-Z][A-Z0-9_]*`)*$/);
    return {
      names: names.split(', ').map((name) => name.slice(1, -1)),
      default: fallback,
      meaning,
    };
  });
}

/** How the README's default column says a variable's default. */
function documentedDefault(variable: { default?: string; documentedDefault?: string }): string {
  if (variable.documentedDefault !== undefined) return variable.documentedDefault;
  if (variable.default === undefined) return 'unset';
  if (variable.default === '') return 'empty';
  return `\`${variable.default}\``;
}

const readme = readFileSync(path.resolve('README.md'), 'utf8');
const variables = Object.values(configVariables);

describe('the README configuration table (CONTRACT, Configuration)', () => {
  it('has one row per variable with its default and its wording', () => {
    const rows = configurationRows(readme);
    for (const variable of variables) {
      const matching = rows.filter((row) => row.names.includes(variable.name));
      expect.soft(matching, `README rows naming ${variable.name}`).toHaveLength(1);
      const [row] = matching;
      expect.soft(row?.default, `${variable.name} default`).toBe(documentedDefault(variable));
      expect.soft(row?.meaning, `${variable.name} meaning`).toBe(variable.description);
    }
  });

  it('names only variables the service reads', () => {
    const rows = configurationRows(readme);
    const known = new Set(variables.map((variable) => variable.name));
    const unknown = rows.flatMap((row) => row.names).filter((name) => !known.has(name));
    expect(unknown).toEqual([]);
  });

  it('reads the combined rows as several variables', () => {
    const rows = configurationRows(readme);
    expect(rows.find((row) => row.names.includes('ERRTRACKER_API_TOKEN'))?.names).toEqual([
      'ERRTRACKER_API_BASE',
      'ERRTRACKER_API_TOKEN',
    ]);
  });
});
