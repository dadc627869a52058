/** pnpm drift on small in-memory roots: reader and builder, without I/O. */
import { describe, expect, it } from 'vitest';
import {
  inventoryOf,
  packageManifest as pkg,
  rootManifest as root,
  workspaceById,
} from './inventory-helpers.js';

/** A pnpm 9 lock whose importers are given as `{ dir: { section: { name: specifier } } }`. */
function pnpmLock(
  importers: Record<string, Record<string, Record<string, string>>>,
  extra = '',
): string {
  const lines = [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '',
    'importers:',
  ];
  for (const [dir, sections] of Object.entries(importers)) {
    lines.push(`  ${JSON.stringify(dir)}:`);
    for (const [section, deps] of Object.entries(sections)) {
      lines.push(`    ${section}:`);
      for (const [name, specifier] of Object.entries(deps)) {
        lines.push(
          `      ${JSON.stringify(name)}:`,
          `        specifier: ${JSON.stringify(specifier)}`,
          '        version: 1.0.0',
        );
      }
    }
  }
  return `${lines.join('\n')}\n${extra}`;
}

const pnpmBase = {
  'package.json': root(),
  'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
  'packages/a/package.json': pkg('a', { dependencies: { ms: '^2.1.3' } }),
};

describe('pnpm drift', () => {
  it('reports a workspace the lock has no importer for', () => {
    const document = inventoryOf({
      ...pnpmBase,
      'packages/new/package.json': pkg('new'),
      'pnpm-lock.yaml': pnpmLock({ '.': {}, 'packages/a': { dependencies: { ms: '^2.1.3' } } }),
    });
    expect(document.lockfile_drift.missing_in_lockfile).toEqual([
      {
        kind: 'importer',
        workspace_id: 'packages/new',
        lockfile_importer: 'packages/new',
        dependency_name: null,
        section: null,
        manifest_specifier: null,
        evidence_refs: ['packages/new/package.json', 'pnpm-lock.yaml'],
      },
    ]);
    expect(workspaceById(document, 'packages/new').evidence_refs).toEqual([
      'packages/new/package.json',
    ]);
    expect(document.drift_findings[0]?.summary).toContain('the importer packages/new');
  });

  it('reports an importer whose workspace is gone, belonging to no workspace', () => {
    const document = inventoryOf({
      ...pnpmBase,
      'pnpm-lock.yaml': pnpmLock({
        '.': {},
        'packages/a': { dependencies: { ms: '^2.1.3' } },
        'packages/old': {},
      }),
    });
    expect(document.lockfile_drift.extra_in_lockfile).toMatchObject([
      { kind: 'importer', workspace_id: null, lockfile_importer: 'packages/old' },
    ]);
    expect(document.drift_findings).toMatchObject([
      { finding_id: 'extra_in_lockfile:packages/old', severity: 'low', status: 'action_required' },
    ]);
    // no workspace is affected, yet the lock is out of date
    expect(document.rollups.by_status.ready).toBe(2);
    expect(document.lockfile_summary.status).toBe('action_required');
    expect(document.program_status.overall_completion_percent).toBe(100);
  });

  it('reports a dependency moved between sections as a mismatch', () => {
    const document = inventoryOf({
      ...pnpmBase,
      'packages/a/package.json': pkg('a', { devDependencies: { ms: '^2.1.3' } }),
      'pnpm-lock.yaml': pnpmLock({ '.': {}, 'packages/a': { dependencies: { ms: '^2.1.3' } } }),
    });
    expect(document.lockfile_drift.specifier_mismatches).toMatchObject([
      { dependency_name: 'ms', section: 'devDependencies', lockfile_section: 'dependencies' },
    ]);
    expect(document.lockfile_drift.extra_in_lockfile).toEqual([]);
  });

  it('reports a catalog entry changed after locking', () => {
    const document = inventoryOf({
      ...pnpmBase,
      'pnpm-workspace.yaml': 'packages:\n  - packages/*\ncatalog:\n  ms: ^2.1.4\n',
      'packages/a/package.json': pkg('a', { dependencies: { ms: 'catalog:' } }),
      'pnpm-lock.yaml': pnpmLock(
        { '.': {}, 'packages/a': { dependencies: { ms: 'catalog:' } } },
        'catalogs:\n  default:\n    ms:\n      specifier: ^2.1.3\n      version: 2.1.3\n',
      ),
    });
    expect(document.lockfile_drift.specifier_mismatches).toEqual([
      {
        workspace_id: 'packages/a',
        lockfile_importer: 'packages/a',
        dependency_name: 'ms',
        section: 'dependencies',
        lockfile_section: 'dependencies',
        manifest_specifier: '^2.1.4',
        lockfile_specifier: '^2.1.3',
        evidence_refs: [
          'packages/a/package.json#$.dependencies.ms',
          'pnpm-workspace.yaml#$.catalog.ms',
          'pnpm-lock.yaml#$.catalogs.default.ms',
        ],
      },
    ]);
    expect(workspaceById(document, 'packages/a').specifier_counts.caret).toBe(1);
  });

  it('blocks a workspace whose catalog: has no entry', () => {
    const document = inventoryOf({
      ...pnpmBase,
      'packages/a/package.json': pkg('a', { dependencies: { ms: 'catalog:tools' } }),
      'pnpm-lock.yaml': pnpmLock({
        '.': {},
        'packages/a': { dependencies: { ms: 'catalog:tools' } },
      }),
    });
    const workspace = workspaceById(document, 'packages/a');
    expect(workspace).toMatchObject({ status: 'blocked', risk_level: 'high' });
    expect(workspace.specifier_counts.other).toBe(1);
    expect(document.drift_findings[0]).toMatchObject({
      finding_id: 'catalog_entry_missing:packages/a',
      status: 'blocked',
      evidence_refs: [
        'packages/a/package.json#$.dependencies.ms',
        'pnpm-workspace.yaml#$.catalogs.tools',
      ],
    });
    expect(document.lockfile_summary.status).toBe('blocked');
    expect(workspaceById(document, '.').status).toBe('ready');
  });

  it('does not count a single project lock (no importers, lockfile 6.0) as drifted', () => {
    const document = inventoryOf({
      'package.json': root({ dependencies: { ms: '^2.1.3' } }),
      'pnpm-lock.yaml':
        "lockfileVersion: '6.0'\n\ndependencies:\n  ms:\n    specifier: ^2.1.3\n    version: 2.1.3\n",
    });
    expect(document.lockfile_summary).toMatchObject({ importer_count: 1, status: 'in_sync' });
    expect(document.workspaces.map((w) => w.workspace_id)).toEqual(['.']);
  });
});
