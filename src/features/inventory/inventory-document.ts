import { driftFindings, type Finding, SEVERITY_RANK } from './drift-findings.js';
import {
  type InventoryDocument,
  type InventoryWorkspace,
  type LockfileStatus,
  type Priority,
  SCHEMA_VERSION,
  type Severity,
  type SpecifierCounts,
  WORKSPACE_STATUSES,
  type WorkspaceStatus,
} from './inventory-schema.js';
import { classifySpecifier } from './specifiers.js';
import type { WorkspaceManifest, WorkspaceSet } from './workspace-set.js';

/** When nothing is open, both task ids name the steady state. */
export const IN_SYNC_TASK_ID = 'inventory-in-sync';

// spec, "Package inventory document": these booleans are constants of the document.
const OPERATION_BOUNDARIES: InventoryDocument['operation_boundaries'] = {
  read_only_api_allowed: true,
  package_installation_allowed: false,
  package_upgrade_allowed: false,
  lockfile_write_allowed: false,
  external_cve_lookup_allowed: false,
  package_audit_allowed: false,
  package_manager_install_allowed: false,
  production_routing_allowed: false,
};

const APPROVAL_BOUNDARIES: InventoryDocument['approval_boundaries'] = {
  sdk_installation_allowed: false,
  paid_api_call_allowed: false,
  shadow_or_canary_allowed: false,
  production_routing_allowed: false,
  destructive_operation_allowed: false,
};

const PRIORITY_OF: Record<Severity, Priority> = {
  critical: 'P0',
  high: 'P1',
  medium: 'P2',
  low: 'P3',
};

function concerns(finding: Finding, workspace: WorkspaceManifest): boolean {
  return finding.workspaceIds === 'all' || finding.workspaceIds.includes(workspace.dir);
}

/** A finding's status decides the workspace's; accepted findings leave it ready. */
function workspaceStatus(findings: Finding[]): WorkspaceStatus {
  for (const status of ['blocked', 'action_required', 'planned_next'] as const) {
    if (findings.some((finding) => finding.status === status)) return status;
  }
  return 'ready';
}

function worstSeverity(findings: Finding[]): Severity {
  const open = findings.filter((finding) => finding.status !== 'accepted');
  return open.reduce<Severity>(
    (worst, finding) =>
      SEVERITY_RANK[finding.severity] < SEVERITY_RANK[worst] ? finding.severity : worst,
    'low',
  );
}

function isWorkspaceDependency(name: string, specifier: string, names: Set<string>): boolean {
  return specifier.startsWith('workspace:') || names.has(name);
}

function workspaceEntry(
  workspace: WorkspaceManifest,
  findings: Finding[],
  workspaceNames: Set<string>,
  lockfileRef: string,
): InventoryWorkspace {
  const counts = {
    dependencies: 0,
    devDependencies: 0,
    peerDependencies: 0,
    optionalDependencies: 0,
  };
  const specifiers: SpecifierCounts = { workspace: 0, caret: 0, exact: 0, tilde: 0, other: 0 };
  for (const dep of workspace.dependencies) {
    counts[dep.section]++;
    // an unresolvable `catalog:` has no range to classify
    specifiers[
      dep.resolvedSpecifier === undefined ? 'other' : classifySpecifier(dep.resolvedSpecifier)
    ]++;
  }
  const own = findings.filter((finding) => concerns(finding, workspace));
  const status = workspaceStatus(own);
  const first = own.find((finding) => finding.status === status);
  return {
    workspace_id: workspace.dir,
    display_name: workspace.name ?? workspace.dir,
    manifest_ref: workspace.manifestRef,
    lockfile_importer: workspace.lockfileImporter,
    status,
    risk_level: worstSeverity(own),
    private_package: workspace.private,
    package_manager: workspace.packageManager,
    dependency_counts: { ...counts, total: workspace.dependencies.length },
    specifier_counts: specifiers,
    workspace_dependency_names: [
      ...new Set(
        workspace.dependencies
          .filter((dep) => isWorkspaceDependency(dep.name, dep.specifier, workspaceNames))
          .map((dep) => dep.name),
      ),
    ].sort(),
    evidence_refs: [
      workspace.manifestRef,
      ...(workspace.importerRef ? [workspace.importerRef] : []),
    ],
    next_action: first?.next_action ?? `None: ${workspace.manifestRef} agrees with ${lockfileRef}`,
  };
}

function lockfileStatus(set: WorkspaceSet): LockfileStatus {
  if (set.blockers.length > 0) return 'blocked';
  const { missing, mismatches, extra } = set.drift;
  return missing.length + mismatches.length + extra.length > 0 ? 'action_required' : 'in_sync';
}

function sum(
  workspaces: InventoryWorkspace[],
  pick: (workspace: InventoryWorkspace) => number,
): number {
  return workspaces.reduce((total, workspace) => total + pick(workspace), 0);
}

function rollups(
  set: WorkspaceSet,
  workspaces: InventoryWorkspace[],
  names: Set<string>,
): InventoryDocument['rollups'] {
  const byStatus = Object.fromEntries(WORKSPACE_STATUSES.map((status) => [status, 0])) as Record<
    WorkspaceStatus,
    number
  >;
  for (const workspace of workspaces) byStatus[workspace.status]++;
  const total = sum(workspaces, (w) => w.dependency_counts.total);
  const internal = set.workspaces
    .flatMap((workspace) => workspace.dependencies)
    .filter((dep) => isWorkspaceDependency(dep.name, dep.specifier, names)).length;
  const idsWith = (status: WorkspaceStatus) =>
    workspaces.filter((w) => w.status === status).map((w) => w.workspace_id);
  return {
    total_workspaces: workspaces.length,
    total_direct_dependencies: total,
    production_dependency_count: sum(workspaces, (w) => w.dependency_counts.dependencies),
    dev_dependency_count: sum(workspaces, (w) => w.dependency_counts.devDependencies),
    workspace_dependency_count: internal,
    external_dependency_count: total - internal,
    caret_specifier_count: sum(workspaces, (w) => w.specifier_counts.caret),
    exact_specifier_count: sum(workspaces, (w) => w.specifier_counts.exact),
    tilde_specifier_count: sum(workspaces, (w) => w.specifier_counts.tilde),
    manifest_lock_mismatch_count: set.drift.mismatches.length,
    missing_in_lockfile_count: set.drift.missing.length,
    extra_in_lockfile_count: set.drift.extra.length,
    by_status: byStatus,
    action_required_workspace_ids: idsWith('action_required'),
    planned_next_workspace_ids: idsWith('planned_next'),
  };
}

function programStatus(
  workspaces: InventoryWorkspace[],
  findings: Finding[],
): InventoryDocument['program_status'] {
  const ready = workspaces.filter((workspace) => workspace.status === 'ready').length;
  // findings arrive most urgent first; accepted ones are nobody's task
  const queue = findings.filter((finding) => finding.status !== 'accepted');
  return {
    // floor: 100 only when every workspace is ready
    overall_completion_percent:
      workspaces.length === 0 ? 100 : Math.floor((100 * ready) / workspaces.length),
    current_priority: PRIORITY_OF[worstSeverity(queue)],
    current_task_id: queue[0]?.finding_id ?? IN_SYNC_TASK_ID,
    next_task_id: queue[1]?.finding_id ?? IN_SYNC_TASK_ID,
    read_only_mode: true,
  };
}

/** The spec's document from what a reader found; `generatedAt` is the only input from outside. */
export function buildInventoryDocument(set: WorkspaceSet, generatedAt: string): InventoryDocument {
  const findings = driftFindings(set);
  const names = new Set(
    set.workspaces.flatMap((workspace) => (workspace.name ? [workspace.name] : [])),
  );
  const workspaces = set.workspaces.map((workspace) =>
    workspaceEntry(workspace, findings, names, set.lockfile.ref),
  );
  const status = lockfileStatus(set);
  return {
    schema_version: SCHEMA_VERSION,
    generated_at: generatedAt,
    program_status: programStatus(workspaces, findings),
    source_refs: set.sourceRefs.length > 0 ? set.sourceRefs : [set.lockfile.ref],
    lockfile_summary: {
      lockfile_ref: set.lockfile.ref,
      lockfile_version: set.lockfile.version,
      importer_count: set.lockfile.importerCount,
      package_entry_count: set.lockfile.packageEntryCount,
      snapshot_entry_count: set.lockfile.snapshotEntryCount,
      settings: set.lockfile.settings,
      status,
      write_allowed: false,
    },
    rollups: rollups(set, workspaces, names),
    workspaces,
    lockfile_drift: {
      status,
      missing_in_lockfile: set.drift.missing,
      specifier_mismatches: set.drift.mismatches,
      extra_in_lockfile: set.drift.extra,
    },
    drift_findings: findings.map(({ workspaceIds: _scope, ...finding }) => finding),
    operation_boundaries: { ...OPERATION_BOUNDARIES },
    approval_boundaries: { ...APPROVAL_BOUNDARIES },
  };
}
