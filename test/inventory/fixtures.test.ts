/**
 * The committed fixtures, made with the real tools (test/fixtures/inventory/README.md), read from
 * disk exactly as the route and the CLI read them, and cross-checked against each manager's own
 * listing (how those were generated: manager-listings.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type {
  DependencySection,
  InventoryDocument,
} from '../../src/features/inventory/inventory-schema.js';
import { readInventory } from '../../src/features/inventory/read-inventory.js';
import {
  expectValidDocument,
  fixture,
  GENERATED_AT,
  REPO_ROOT,
  workspaceById,
} from './inventory-helpers.js';
import { type ListedWorkspace, managerListing } from './manager-listings.js';

function inventory(root: string): InventoryDocument {
  const outcome = readInventory(root, () => new Date(GENERATED_AT));
  if (!outcome.ok) throw new Error(outcome.detail);
  expectValidDocument(outcome.document);
  return outcome.document;
}

// counts read off each lock file independently (yaml/JSON key counts, `grep` on yarn.lock)
const FIXTURES = {
  'pnpm-catalog': { lock: ['pnpm-lock.yaml', '9.0', 4, 7, 7], drifted: false },
  'pnpm-catalog-drifted': { lock: ['pnpm-lock.yaml', '9.0', 4, 7, 7], drifted: true },
  'pnpm-lock-v6': { lock: ['pnpm-lock.yaml', '6.0', 3, 4, 0], drifted: false },
  'npm-workspaces': { lock: ['package-lock.json', '3', 4, 7, 0], drifted: false },
  'npm-workspaces-drifted': { lock: ['package-lock.json', '3', 4, 7, 0], drifted: true },
  'npm-lock-v2': { lock: ['package-lock.json', '2', 2, 2, 0], drifted: false },
  'yarn-classic': { lock: ['yarn.lock', '1', 0, 6, 0], drifted: false },
  'yarn-classic-drifted': { lock: ['yarn.lock', '1', 0, 6, 0], drifted: true },
  'yarn-berry': { lock: ['yarn.lock', '10', 4, 7, 0], drifted: false },
  'yarn-berry-drifted': { lock: ['yarn.lock', '10', 4, 7, 0], drifted: true },
} as const;

type Section = Exclude<DependencySection, 'peerDependencies'>;

/** Drift entries of one workspace in the given sections: how the lock's view differs. */
function driftCount(document: InventoryDocument, workspaceId: string, sections: readonly string[]) {
  const counted = (
    entries: Array<{ kind: string; workspace_id: string | null; section: string | null }>,
  ) =>
    entries.filter(
      (e) =>
        e.kind === 'dependency' &&
        e.workspace_id === workspaceId &&
        sections.includes(e.section ?? ''),
    ).length;
  return {
    missing: counted(document.lockfile_drift.missing_in_lockfile),
    extra: counted(document.lockfile_drift.extra_in_lockfile),
  };
}

function manifestPeers(root: string, dir: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
  return Object.keys(manifest.peerDependencies ?? {});
}

function expectSectionCounts(
  root: string,
  document: InventoryDocument,
  listed: ListedWorkspace,
  reflects: string,
) {
  const workspace = workspaceById(document, listed.dir);
  for (const [section, names] of Object.entries(listed.sections ?? {}) as Array<
    [DependencySection, string[]]
  >) {
    if (reflects === 'manifests') {
      expect(workspace.dependency_counts[section], `${listed.dir} ${section}`).toBe(names.length);
      continue;
    }
    // the lock's view: minus what the manifest dropped, plus what it added; pnpm's
    // autoInstallPeers lists a workspace's own peers among its dependencies
    const { missing, extra } = driftCount(document, listed.dir, [section]);
    const peers =
      section === 'dependencies'
        ? names.filter((n) => manifestPeers(root, listed.dir).includes(n))
        : [];
    expect(workspace.dependency_counts[section as Section], `${listed.dir} ${section}`).toBe(
      names.length - extra + missing - peers.length,
    );
  }
}

function expectMergedCount(document: InventoryDocument, listed: ListedWorkspace, reflects: string) {
  if (!listed.merged) return;
  const counts = workspaceById(document, listed.dir).dependency_counts;
  if (reflects === 'manifests') {
    expect(counts.total, `${listed.dir} all sections`).toBe(listed.merged.length);
    return;
  }
  const { missing, extra } = driftCount(document, listed.dir, [
    'dependencies',
    'devDependencies',
    'optionalDependencies',
  ]);
  expect(
    counts.dependencies + counts.devDependencies + counts.optionalDependencies,
    listed.dir,
  ).toBe(listed.merged.length - extra + missing);
}

describe.each(Object.entries(FIXTURES))('fixture %s', (name, expected) => {
  const root = fixture(name);
  const document = inventory(root);
  const listing = managerListing(root);

  it('lists the workspaces, names and privacy the package manager lists', () => {
    const ours = document.workspaces.filter((w) => listing.includesRoot || w.workspace_id !== '.');
    expect(ours.map((w) => w.workspace_id).sort()).toEqual(
      listing.workspaces.map((w) => w.dir).sort(),
    );
    for (const listed of listing.workspaces) {
      const workspace = workspaceById(document, listed.dir);
      expect(workspace.display_name).toBe(listed.name);
      if (listed.private !== undefined)
        expect(workspace.private_package ?? false).toBe(listed.private);
    }
  });

  it('counts direct dependencies as the package manager does', () => {
    for (const listed of listing.workspaces) {
      expectSectionCounts(root, document, listed, listing.reflects);
      expectMergedCount(document, listed, listing.reflects);
    }
  });

  it('names the workspace dependencies the package manager names', () => {
    for (const listed of listing.workspaces) {
      if (!listed.workspaceDependencies) continue;
      expect(workspaceById(document, listed.dir).workspace_dependency_names).toEqual(
        listed.workspaceDependencies,
      );
    }
  });

  it('takes the lock file counts from the file', () => {
    const [ref, version, importers, packages, snapshots] = expected.lock;
    expect(document.lockfile_summary).toMatchObject({
      lockfile_ref: ref,
      lockfile_version: version,
      importer_count: importers,
      package_entry_count: packages,
      snapshot_entry_count: snapshots,
    });
  });
});

const CLEAN = Object.entries(FIXTURES)
  .filter(([, expected]) => !expected.drifted)
  .map(([name]) => name);

describe.each(CLEAN)('clean fixture %s', (name) => {
  it('is in sync: every workspace ready, nothing to do', () => {
    const document = inventory(fixture(name));
    expect(document.lockfile_drift).toEqual({
      status: 'in_sync',
      missing_in_lockfile: [],
      specifier_mismatches: [],
      extra_in_lockfile: [],
    });
    expect(document.drift_findings).toEqual([]);
    expect(document.rollups.by_status.ready).toBe(document.workspaces.length);
    expect(document.program_status).toEqual({
      overall_completion_percent: 100,
      current_priority: 'P3',
      current_task_id: 'inventory-in-sync',
      next_task_id: 'inventory-in-sync',
      read_only_mode: true,
    });
  });
});

describe('this repository', () => {
  it('is an npm project without workspaces: one workspace, inventoried without error', () => {
    const document = inventory(REPO_ROOT);
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(document.lockfile_summary.lockfile_ref).toBe('package-lock.json');
    expect(document.workspaces.map((w) => w.workspace_id)).toEqual(['.']);
    const [root] = document.workspaces;
    expect(root?.display_name).toBe(manifest.name);
    expect(root?.dependency_counts.dependencies).toBe(
      Object.keys(manifest.dependencies ?? {}).length,
    );
    expect(root?.dependency_counts.devDependencies).toBe(
      Object.keys(manifest.devDependencies ?? {}).length,
    );
  });
});
