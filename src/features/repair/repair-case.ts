import type { Db } from '../../ports/store.js';
import { type Approval, lookUpApproval } from '../approvals/approval-records.js';
import { type IncidentRow, lookUpIncident } from '../incidents/incident-records.js';
import type { RepairSubject } from './playbooks.js';
import type { IncidentSeverity } from './repair-decision.js';
import type { RepairTarget } from './run-playbook.js';

/** Everything a repair needs to know about one approval. */
export interface RepairCase {
  approval: Approval;
  /** Null without an incident: error-tracker approvals have none (spec, incident id). */
  severity: IncidentSeverity | null;
  subject: RepairSubject;
  target: RepairTarget;
}

const SEVERITIES: readonly string[] = ['P0', 'P1', 'P2', 'P3'];

/**
 * Read with the cases loaded beside it (a storm's evaluations): a few statements for them all.
 * `incidentRead` is the approval's incident as its caller read it (an incident's follow-up):
 * what a case takes from it is fixed when the incident opens, so it is not read twice.
 */
export async function loadRepairCase(
  db: Db,
  approvalId: string,
  incidentRead?: IncidentRow,
): Promise<RepairCase | undefined> {
  const approval = await lookUpApproval(db, approvalId);
  if (!approval) return undefined;
  const incidentId = approval.incident_id;
  if (!incidentId) return repairCaseOf(approval, undefined);
  const incident =
    incidentRead?.id === incidentId ? incidentRead : await lookUpIncident(db, incidentId);
  return repairCaseOf(approval, incident);
}

/**
 * An alert's approval takes type, severity and target from its incident. An error-tracker
 * approval has only its metadata: `alert_type` is `errtracker_<level>` (spec), an
 * `error_signature` is read when the pipeline recorded the analyzer's signature id, and the
 * tracker project stands in for the workload (spec: related_services is `[project]`).
 */
export function repairCaseOf(approval: Approval, incident: IncidentRow | undefined): RepairCase {
  const meta = approval.metadata;
  const workload = incident?.workload || textOf(meta.workload) || textOf(meta.project) || '';
  return {
    approval,
    severity:
      incident && SEVERITIES.includes(incident.severity)
        ? (incident.severity as IncidentSeverity)
        : null,
    subject: {
      alert_type: incident?.alert_type ?? textOf(meta.alert_type) ?? 'custom',
      error_signature: textOf(meta.error_signature) ?? null,
      labels: incident ? labelsOf(incident.labels) : {},
    },
    target: {
      // CONTRACT, Alert webhook: namespace defaults to `default`.
      namespace: incident?.namespace || textOf(meta.namespace) || 'default',
      workload,
      target: incident?.target_resource || textOf(meta.target_resource) || workload,
      incident_id: approval.incident_id,
      approval_id: approval.id,
    },
  };
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function labelsOf(json: string): Record<string, string> {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(parsed).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}
