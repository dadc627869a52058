/** Blocked lock files, npm and Yarn specifics, and finding the workspace set, on in-memory roots. */
import { describe, expect, it } from 'vitest';
import {
  InventoryReadError,
  WorkspaceNotFoundError,
} from '../../src/features/inventory/inventory-errors.js';
import { chooseReader } from '../../src/features/inventory/read-inventory.js';
import {
  inventoryOf,
  json,
  memoryFiles,
  packageManifest as pkg,
  rootManifest as root,
} from './inventory-helpers.js';

describe('blocked lock files', () => {
  it.each([
    [
      'pnpm',
      { 'pnpm-workspace.yaml': 'packages: []\n' },
      'pnpm-lock.yaml',
      'pnpm install --lockfile-only',
    ],
    ['npm', {}, 'package-lock.json', 'npm install --package-lock-only'],
    [
      'Yarn 1 (packageManager)',
      { 'package.json': root({ packageManager: 'yarn@1.22.22' }) },
      'yarn.lock',
      'yarn install',
    ],
    [
      'Yarn 4 (packageManager)',
      { 'package.json': root({ packageManager: 'yarn@4.18.1' }) },
      'yarn.lock',
      'yarn install --mode=update-lockfile',
    ],
  ])('%s without a lock file blocks every workspace', (_manager, files, lockfile, command) => {
    const document = inventoryOf({ 'package.json': root(), ...files });
    expect(document.lockfile_summary).toMatchObject({
      lockfile_ref: lockfile,
      lockfile_version: 'absent',
      status: 'blocked',
    });
    expect(document.workspaces.every((w) => w.status === 'blocked')).toBe(true);
    expect(document.drift_findings).toMatchObject([
      {
        finding_id: `lockfile_missing:${lockfile}`,
        severity: 'high',
        status: 'blocked',
        evidence_refs: [lockfile],
      },
    ]);
    expect(document.drift_findings[0]?.next_action).toContain(`\`${command}\``);
    expect(document.program_status).toMatchObject({
      overall_completion_percent: 0,
      current_priority: 'P1',
      current_task_id: `lockfile_missing:${lockfile}`,
      next_task_id: 'inventory-in-sync',
    });
  });

  it.each([
    ['pnpm-lock.yaml', { 'pnpm-workspace.yaml': 'packages: []\n' }],
    ['package-lock.json', {}],
    ['yarn.lock', {}],
  ])('%s with merge conflict markers is blocked, not a read error', (lockfile, files) => {
    const conflicted =
      '<<<<<<< HEAD\nlockfileVersion: 3\n=======\nlockfileVersion: 2\n>>>>>>> main\n';
    const document = inventoryOf({ 'package.json': root(), ...files, [lockfile]: conflicted });
    expect(document.drift_findings).toMatchObject([
      { finding_id: `lockfile_merge_conflict:${lockfile}`, status: 'blocked' },
    ]);
    expect(document.lockfile_summary.status).toBe('blocked');
  });

  it.each([
    ['pnpm-lock.yaml', 'lockfileVersion: 5.4\n', '5.4', 'pnpm-lock.yaml#$.lockfileVersion'],
    [
      'package-lock.json',
      json({ name: 'root', lockfileVersion: 1, dependencies: {} }),
      '1',
      'package-lock.json#$.lockfileVersion',
    ],
  ])('%s of an unsupported version is blocked', (lockfile, text, version, ref) => {
    const document = inventoryOf({ 'package.json': root(), [lockfile]: text });
    expect(document.lockfile_summary).toMatchObject({
      lockfile_version: version,
      status: 'blocked',
    });
    expect(document.drift_findings).toMatchObject([
      { finding_id: `lockfile_version_unsupported:${lockfile}`, evidence_refs: [ref] },
    ]);
  });
});

describe('npm and Yarn specifics', () => {
  it('accepts an npm importer that a file: dependency reaches', () => {
    const lock = {
      name: 'root',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'root', dependencies: { local: 'file:vendor/local' } },
        'node_modules/local': { resolved: 'vendor/local', link: true },
        'vendor/local': { name: 'local', version: '1.0.0' },
      },
    };
    const document = inventoryOf({
      'package.json': root({ dependencies: { local: 'file:vendor/local' } }),
      'package-lock.json': json(lock),
    });
    expect(document.lockfile_drift.status).toBe('in_sync');
    expect(document.lockfile_summary).toMatchObject({
      importer_count: 2,
      package_entry_count: 0,
      settings: { requires: true },
    });
  });

  it('tells a new Yarn 1 dependency from a changed one even when the name is locked transitively', () => {
    const lock = [
      '# yarn lockfile v1',
      '',
      'debug@^4.3.4:',
      '  version "4.4.3"',
      '  dependencies:',
      '    ms "^2.1.3"',
      '',
      'ms@^2.1.3:',
      '  version "2.1.3"',
      '',
    ].join('\n');
    const document = inventoryOf({
      'package.json': root({ dependencies: { debug: '^4.3.4', ms: '^3.0.0' } }),
      'yarn.lock': lock,
    });
    expect(document.lockfile_drift.missing_in_lockfile).toMatchObject([{ dependency_name: 'ms' }]);
    expect(document.lockfile_drift.specifier_mismatches).toEqual([]);
    expect(document.lockfile_drift.extra_in_lockfile).toEqual([]);
  });

  it('reports everything a removed Yarn 1 dependency pulled in as extra', () => {
    const lock =
      '# yarn lockfile v1\n\ndebug@^4.3.4:\n  version "4.4.3"\n  dependencies:\n    ms "^2.1.3"\n\nms@^2.1.3:\n  version "2.1.3"\n';
    const document = inventoryOf({ 'package.json': root(), 'yarn.lock': lock });
    expect(document.lockfile_drift.extra_in_lockfile.map((e) => e.dependency_name)).toEqual([
      'debug',
      'ms',
    ]);
    expect(document.drift_findings).toMatchObject([
      {
        finding_id: 'extra_in_lockfile:yarn.lock',
        status: 'planned_next',
        summary: expect.stringMatching(/^yarn\.lock holds 2 entries/),
      },
    ]);
    expect(document.rollups.planned_next_workspace_ids).toEqual([]);
  });
});

describe('finding the workspace set', () => {
  it('treats a root package without workspaces as a single workspace', () => {
    const document = inventoryOf({
      'package.json': root({ dependencies: { ms: '^2.1.3' }, devDependencies: { kleur: '4.1.5' } }),
      'packages/stray/package.json': pkg('stray'),
      'package-lock.json': json({
        name: 'root',
        lockfileVersion: 3,
        packages: {
          '': { name: 'root', dependencies: { ms: '^2.1.3' }, devDependencies: { kleur: '4.1.5' } },
        },
      }),
    });
    expect(document.workspaces).toHaveLength(1);
    expect(document.rollups).toMatchObject({
      total_direct_dependencies: 2,
      caret_specifier_count: 1,
      exact_specifier_count: 1,
    });
  });

  it('reads Yarn 1 workspaces given as { packages: [...] }', () => {
    const files = memoryFiles({
      'package.json': root({ workspaces: { packages: ['packages/*'] } }),
      'packages/a/package.json': pkg('a'),
      'yarn.lock': '# yarn lockfile v1\n',
    });
    expect(
      chooseReader(files)
        .read(files)
        .workspaces.map((w) => w.dir),
    ).toEqual(['.', 'packages/a']);
  });

  it('finds no workspace without package.json or pnpm-workspace.yaml', () => {
    const files = memoryFiles({ 'yarn.lock': '' });
    expect(() => chooseReader(files)).toThrow(WorkspaceNotFoundError);
  });

  it('refuses a manifest that is not JSON', () => {
    const files = memoryFiles({
      'package.json': root({ workspaces: ['packages/*'] }),
      'packages/a/package.json': '{ nope',
    });
    expect(() => chooseReader(files).read(files)).toThrow(InventoryReadError);
  });
});
