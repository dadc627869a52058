/**
 * Each drifted fixture is a copy of a clean one whose manifests were edited after locking:
 * one dependency added, one specifier changed, one dependency removed (README.md).
 */
import { describe, expect, it } from 'vitest';
import { readInventory } from '../../src/features/inventory/read-inventory.js';
import { expectValidDocument, fixture, GENERATED_AT, workspaceById } from './inventory-helpers.js';

const CASES = [
  {
    name: 'pnpm-catalog-drifted',
    added: ['packages/util', 'semver'],
    changed: ['packages/core', 'kleur', '^4.1.5', '~4.1.5'],
    removed: ['apps/web', 'debug'],
    extraStatus: 'action_required', // pnpm install --frozen-lockfile rejects stale specifiers
    sync: 'pnpm install --lockfile-only',
  },
  {
    name: 'npm-workspaces-drifted',
    added: ['packages/beta', 'semver'],
    changed: ['packages/alpha', 'kleur', '^4.1.5', '~4.1.5'],
    removed: ['tools/cli', 'escape-string-regexp'],
    extraStatus: 'planned_next', // npm ci accepts them
    sync: 'npm install --package-lock-only',
  },
  {
    name: 'yarn-classic-drifted',
    added: ['packages/right', 'semver'],
    changed: ['packages/left', 'kleur', '^4.1.5', '~4.1.5'],
    removed: [null, 'is-number'], // Yarn 1 locks packages, not workspaces
    extraStatus: 'planned_next', // yarn install --frozen-lockfile accepts them
    sync: 'yarn install',
  },
  {
    name: 'yarn-berry-drifted',
    added: ['packages/right', 'semver'],
    changed: ['packages/left', 'kleur', '^4.1.5', 'npm:~4.1.5'],
    removed: ['apps/site', 'escape-string-regexp'],
    extraStatus: 'action_required', // yarn install --immutable rejects them
    sync: 'yarn install --mode=update-lockfile',
  },
] as const;

describe.each(CASES)('drifted fixture $name', (drifted) => {
  const outcome = readInventory(fixture(drifted.name), () => new Date(GENERATED_AT));
  if (!outcome.ok) throw new Error(outcome.detail);
  const document = outcome.document;

  it('validates against the schema', () => expectValidDocument(document));

  it('finds the added dependency missing, the changed one mismatched, the removed one extra', () => {
    const { missing_in_lockfile, specifier_mismatches, extra_in_lockfile, status } =
      document.lockfile_drift;
    expect(status).toBe('action_required');
    expect(missing_in_lockfile.map((e) => [e.workspace_id, e.dependency_name])).toEqual([
      drifted.added,
    ]);
    expect(
      specifier_mismatches.map((e) => [
        e.workspace_id,
        e.dependency_name,
        e.manifest_specifier,
        e.lockfile_specifier,
      ]),
    ).toEqual([drifted.changed]);
    expect(extra_in_lockfile.map((e) => [e.workspace_id, e.dependency_name])).toEqual([
      drifted.removed,
    ]);
    expect(document.rollups).toMatchObject({
      missing_in_lockfile_count: 1,
      manifest_lock_mismatch_count: 1,
      extra_in_lockfile_count: 1,
    });
  });

  it('points every drift entry at both files', () => {
    const entries = [
      ...document.lockfile_drift.missing_in_lockfile,
      ...document.lockfile_drift.specifier_mismatches,
    ];
    for (const entry of entries) {
      expect(entry.evidence_refs[0]).toMatch(/package\.json#\$\.\w+/);
      expect(entry.evidence_refs[1]).toMatch(
        /^(pnpm-lock\.yaml#\$|package-lock\.json#\$|yarn\.lock)/,
      );
    }
    const mismatch = document.lockfile_drift.specifier_mismatches[0]!;
    expect(mismatch.evidence_refs[1]).toMatch(/#\$\..+kleur$|^yarn\.lock:\d+$/);
  });

  it('derives findings, workspace states and program status from the drift', () => {
    const findings = document.drift_findings;
    expect(findings.map((f) => [f.severity, f.status])).toEqual([
      ['high', 'action_required'],
      ['medium', 'action_required'],
      ['low', drifted.extraStatus],
    ]);
    for (const finding of findings) expect(finding.next_action).toContain(`\`${drifted.sync}\``);
    expect(workspaceById(document, drifted.added[0]!)).toMatchObject({
      status: 'action_required',
      risk_level: 'high',
    });
    expect(workspaceById(document, drifted.changed[0]!)).toMatchObject({
      status: 'action_required',
      risk_level: 'medium',
    });
    if (drifted.removed[0]) {
      const expectedStatus =
        drifted.extraStatus === 'planned_next' ? 'planned_next' : 'action_required';
      expect(workspaceById(document, drifted.removed[0])).toMatchObject({
        status: expectedStatus,
        risk_level: 'low',
      });
    }
    expect(workspaceById(document, '.').status).toBe('ready');
    const ready = document.workspaces.filter((w) => w.status === 'ready').length;
    expect(document.program_status).toEqual({
      overall_completion_percent: Math.floor((100 * ready) / document.workspaces.length),
      current_priority: 'P1',
      current_task_id: `missing_in_lockfile:${drifted.added[0]}`,
      next_task_id: `specifier_mismatch:${drifted.changed[0]}`,
      read_only_mode: true,
    });
    expect(document.rollups.action_required_workspace_ids).toContain(drifted.added[0]);
  });
});
