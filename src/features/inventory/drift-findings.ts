import type { DriftFinding, FindingStatus, Severity } from './inventory-schema.js';
import { regenerateLockfile } from './lockfile-blockers.js';
import type { WorkspaceSet } from './workspace-set.js';

/** A finding plus the workspaces it concerns, which stays internal to the builder. */
export interface Finding extends DriftFinding {
  workspaceIds: string[] | 'all';
}

export const SEVERITY_RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };
export const FINDING_STATUS_RANK: Record<FindingStatus, number> = {
  blocked: 0,
  action_required: 1,
  planned_next: 2,
  accepted: 3,
};

// Managers whose frozen install rejects a lock with stale entries (verified with pnpm 9
// `--frozen-lockfile` and Yarn 4 `--immutable`); `npm ci` and Yarn 1 `--frozen-lockfile` accept it.
const STRICT_ABOUT_EXTRAS: ReadonlySet<string> = new Set(['pnpm', 'yarn-berry']);

interface DriftLike {
  workspace_id: string | null;
  lockfile_importer: string | null;
  evidence_refs: string[];
}

/** By workspace; entries of no workspace by importer, then under the lock file itself. */
function groupBy<T extends DriftLike>(
  entries: readonly T[],
  lockfileRef: string,
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const entry of entries) {
    const key = entry.workspace_id ?? entry.lockfile_importer ?? lockfileRef;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  return groups;
}

function listed(items: string[]): string {
  const shown = items.slice(0, 5).join(', ');
  return items.length > 5 ? `${shown} and ${items.length - 5} more` : shown;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Findings, most urgent first: blocked, then action_required, then planned_next; by severity. */
export function driftFindings(set: WorkspaceSet): Finding[] {
  const lock = set.lockfile.ref;
  const nextAction = regenerateLockfile(lock, set.commands);
  const findings: Finding[] = [];
  const push = (finding: Finding) =>
    findings.push({ ...finding, evidence_refs: [...new Set(finding.evidence_refs)] });

  for (const blocker of set.blockers) {
    const scope = blocker.workspaceDirs.join(',') || lock;
    push({
      finding_id: `${blocker.code}:${scope}`,
      severity: 'high',
      status: 'blocked',
      summary: blocker.summary,
      evidence_refs: blocker.evidenceRefs,
      next_action: blocker.nextAction,
      workspaceIds: blocker.workspaceDirs.length > 0 ? blocker.workspaceDirs : 'all',
    });
  }
  for (const [key, entries] of groupBy(set.drift.missing, lock)) {
    const names = entries.map((e) => e.dependency_name ?? `the importer ${e.lockfile_importer}`);
    push({
      finding_id: `missing_in_lockfile:${key}`,
      severity: 'high',
      status: 'action_required',
      summary: `${key}: ${lock} lacks ${plural(entries.length, 'manifest entry', 'manifest entries')}: ${listed(names)}`,
      evidence_refs: entries.flatMap((e) => e.evidence_refs),
      next_action: nextAction,
      workspaceIds: [key],
    });
  }
  for (const [key, entries] of groupBy(set.drift.mismatches, lock)) {
    const changes = entries.map(
      (e) =>
        `${e.dependency_name} (manifest ${e.manifest_specifier}, lock ${e.lockfile_specifier ?? 'none'})`,
    );
    push({
      finding_id: `specifier_mismatch:${key}`,
      severity: 'medium',
      status: 'action_required',
      summary: `${key}: ${plural(entries.length, 'specifier differs', 'specifiers differ')} from ${lock}: ${listed(changes)}`,
      evidence_refs: entries.flatMap((e) => e.evidence_refs),
      next_action: nextAction,
      workspaceIds: [key],
    });
  }
  for (const [key, entries] of groupBy(set.drift.extra, lock)) {
    const names = entries.map((e) => e.dependency_name ?? `importer ${e.lockfile_importer}`);
    const strict = STRICT_ABOUT_EXTRAS.has(set.manager);
    push({
      finding_id: `extra_in_lockfile:${key}`,
      severity: 'low',
      // a frozen install that tolerates stale entries can wait for the next lock refresh
      status: strict ? 'action_required' : 'planned_next',
      summary: `${key === lock ? '' : `${key}: `}${lock} holds ${plural(entries.length, 'entry', 'entries')} no manifest declares: ${listed(names)}`,
      evidence_refs: entries.flatMap((e) => e.evidence_refs),
      next_action: strict
        ? nextAction
        : `Not urgent, \`${set.commands.verifyLockfile}\` still passes; at the next lock refresh, ${nextAction.charAt(0).toLowerCase()}${nextAction.slice(1)}`,
      // a stale importer or an orphaned package belongs to no workspace
      workspaceIds: entries[0]?.workspace_id ? [key] : [],
    });
  }
  const ids = new Map<string, number>();
  for (const finding of findings) {
    const seen = ids.get(finding.finding_id) ?? 0;
    ids.set(finding.finding_id, seen + 1);
    if (seen > 0) finding.finding_id = `${finding.finding_id}#${seen + 1}`;
  }
  return findings.sort(
    (a, b) =>
      FINDING_STATUS_RANK[a.status] - FINDING_STATUS_RANK[b.status] ||
      SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity],
  );
}
