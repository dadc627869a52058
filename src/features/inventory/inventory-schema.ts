import { type Static, type TSchema, Type } from 'typebox';

/**
 * The package inventory document (spec, "Package inventory document"), written once: the TS type,
 * the route's response schema and `schemas/javascript_package_inventory_v1.schema.json` all come
 * from here. Every object with named keys is closed (`additionalProperties: false`); the two maps
 * (`lockfile_summary.settings`, keyed by the lock file) constrain their values instead.
 */
export const SCHEMA_VERSION = 'javascript_package_inventory_v1';

export const LOCKFILE_STATUSES = ['in_sync', 'action_required', 'blocked'] as const;
export const WORKSPACE_STATUSES = [
  'ready',
  'action_required',
  'planned_next',
  'blocked',
  'deferred',
] as const;
export const FINDING_STATUSES = ['action_required', 'planned_next', 'blocked', 'accepted'] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const PRIORITIES = ['P0', 'P1', 'P2', 'P3'] as const;
export const DEPENDENCY_SECTIONS = [
  'dependencies',
  'devDependencies',
  'peerDependencies',
  'optionalDependencies',
] as const;

export type LockfileStatus = (typeof LOCKFILE_STATUSES)[number];
export type WorkspaceStatus = (typeof WORKSPACE_STATUSES)[number];
export type FindingStatus = (typeof FINDING_STATUSES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type Priority = (typeof PRIORITIES)[number];
export type DependencySection = (typeof DEPENDENCY_SECTIONS)[number];

function enumOf<const T extends readonly string[]>(values: T) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

function closed<T extends Record<string, TSchema>>(properties: T) {
  return Type.Object(properties, { additionalProperties: false });
}

const NonEmptyString = Type.String({ minLength: 1 });
const NonEmptyStrings = Type.Array(NonEmptyString, { minItems: 1 });
const Count = Type.Integer({ minimum: 0 });
const OptionalText = Type.Union([NonEmptyString, Type.Null()]);
const Section = Type.Union([enumOf(DEPENDENCY_SECTIONS), Type.Null()]);
const Scalar = Type.Union([
  Type.Boolean(),
  Type.String(),
  Type.Integer(),
  Type.Number(),
  Type.Null(),
]);

const ProgramStatus = closed({
  overall_completion_percent: Type.Integer({ minimum: 0, maximum: 100 }),
  current_priority: enumOf(PRIORITIES),
  current_task_id: NonEmptyString,
  next_task_id: NonEmptyString,
  read_only_mode: Type.Literal(true),
});

const LockfileSummary = closed({
  lockfile_ref: NonEmptyString,
  lockfile_version: NonEmptyString,
  importer_count: Count,
  package_entry_count: Count,
  snapshot_entry_count: Count,
  settings: Type.Unsafe<Record<string, Static<typeof Scalar>>>({
    type: 'object',
    additionalProperties: Scalar,
  }),
  status: enumOf(LOCKFILE_STATUSES),
  write_allowed: Type.Literal(false),
});

const ByStatus = closed({
  ready: Count,
  action_required: Count,
  planned_next: Count,
  blocked: Count,
  deferred: Count,
});

const Rollups = closed({
  total_workspaces: Count,
  total_direct_dependencies: Count,
  production_dependency_count: Count,
  dev_dependency_count: Count,
  workspace_dependency_count: Count,
  external_dependency_count: Count,
  caret_specifier_count: Count,
  exact_specifier_count: Count,
  tilde_specifier_count: Count,
  manifest_lock_mismatch_count: Count,
  missing_in_lockfile_count: Count,
  extra_in_lockfile_count: Count,
  by_status: ByStatus,
  action_required_workspace_ids: Type.Array(NonEmptyString),
  planned_next_workspace_ids: Type.Array(NonEmptyString),
});

const Workspace = closed({
  workspace_id: NonEmptyString,
  display_name: NonEmptyString,
  manifest_ref: NonEmptyString,
  lockfile_importer: NonEmptyString,
  status: enumOf(WORKSPACE_STATUSES),
  risk_level: enumOf(SEVERITIES),
  private_package: Type.Union([Type.Boolean(), Type.Null()]),
  package_manager: Type.Union([Type.String(), Type.Null()]),
  dependency_counts: closed({
    dependencies: Count,
    devDependencies: Count,
    peerDependencies: Count,
    optionalDependencies: Count,
    total: Count,
  }),
  specifier_counts: closed({
    workspace: Count,
    caret: Count,
    exact: Count,
    tilde: Count,
    other: Count,
  }),
  workspace_dependency_names: Type.Array(NonEmptyString),
  evidence_refs: NonEmptyStrings,
  next_action: NonEmptyString,
});

// The spec leaves drift entries free-form; ours have one closed shape per list.
const MissingInLockfile = closed({
  kind: enumOf(['dependency', 'importer'] as const),
  workspace_id: NonEmptyString,
  lockfile_importer: NonEmptyString,
  dependency_name: OptionalText,
  section: Section,
  manifest_specifier: Type.Union([Type.String(), Type.Null()]),
  evidence_refs: NonEmptyStrings,
});

const SpecifierMismatch = closed({
  workspace_id: NonEmptyString,
  lockfile_importer: NonEmptyString,
  dependency_name: NonEmptyString,
  section: enumOf(DEPENDENCY_SECTIONS),
  lockfile_section: Section,
  manifest_specifier: Type.String(),
  lockfile_specifier: Type.Union([Type.String(), Type.Null()]),
  evidence_refs: NonEmptyStrings,
});

const ExtraInLockfile = closed({
  kind: enumOf(['dependency', 'importer', 'package'] as const),
  workspace_id: OptionalText,
  lockfile_importer: OptionalText,
  dependency_name: OptionalText,
  section: Section,
  lockfile_specifier: Type.Union([Type.String(), Type.Null()]),
  evidence_refs: NonEmptyStrings,
});

const LockfileDrift = closed({
  status: enumOf(LOCKFILE_STATUSES),
  missing_in_lockfile: Type.Array(MissingInLockfile),
  specifier_mismatches: Type.Array(SpecifierMismatch),
  extra_in_lockfile: Type.Array(ExtraInLockfile),
});

const DriftFinding = closed({
  finding_id: NonEmptyString,
  severity: enumOf(SEVERITIES),
  status: enumOf(FINDING_STATUSES),
  summary: NonEmptyString,
  evidence_refs: NonEmptyStrings,
  next_action: NonEmptyString,
});

const OperationBoundaries = closed({
  read_only_api_allowed: Type.Literal(true),
  package_installation_allowed: Type.Literal(false),
  package_upgrade_allowed: Type.Literal(false),
  lockfile_write_allowed: Type.Literal(false),
  external_cve_lookup_allowed: Type.Literal(false),
  package_audit_allowed: Type.Literal(false),
  package_manager_install_allowed: Type.Literal(false),
  production_routing_allowed: Type.Literal(false),
});

const ApprovalBoundaries = closed({
  sdk_installation_allowed: Type.Literal(false),
  paid_api_call_allowed: Type.Literal(false),
  shadow_or_canary_allowed: Type.Literal(false),
  production_routing_allowed: Type.Literal(false),
  destructive_operation_allowed: Type.Literal(false),
});

export const InventoryDocument = closed({
  schema_version: Type.Literal(SCHEMA_VERSION),
  generated_at: NonEmptyString,
  program_status: ProgramStatus,
  source_refs: NonEmptyStrings,
  lockfile_summary: LockfileSummary,
  rollups: Rollups,
  workspaces: Type.Array(Workspace),
  lockfile_drift: LockfileDrift,
  drift_findings: Type.Array(DriftFinding),
  operation_boundaries: OperationBoundaries,
  approval_boundaries: ApprovalBoundaries,
});

export type InventoryDocument = Static<typeof InventoryDocument>;
export type InventoryWorkspace = Static<typeof Workspace>;
export type MissingInLockfile = Static<typeof MissingInLockfile>;
export type SpecifierMismatch = Static<typeof SpecifierMismatch>;
export type ExtraInLockfile = Static<typeof ExtraInLockfile>;
export type DriftFinding = Static<typeof DriftFinding>;
export type LockfileSettings = Static<typeof LockfileSummary>['settings'];
export type SpecifierCounts = Static<typeof Workspace>['specifier_counts'];

/** The committed schema file: the document schema with its draft and identity. */
export function inventorySchemaFile(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:schema:javascript_package_inventory_v1',
    title: 'JavaScript package inventory document',
    description:
      'Read-only inventory of a JavaScript workspace set: manifests, workspace definition and lock file.',
    ...JSON.parse(JSON.stringify(InventoryDocument)),
  };
}
