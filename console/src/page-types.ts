/**
 * The fields the pages read beyond those the generated types knew when they were written
 * (issue 25's additions to the incident, approval and task answers). Each is optional here, so
 * that the pages work whether or not a field is present, and agree with the generated types
 * once those carry it.
 */
import type { ApprovalDetail, IncidentDetail } from './api-types';
import type { AutoRepair } from './oplog-text';

type Strings = Record<string, string>;

/** A silence that matches the incident's labels, active or pending. */
export interface MatchingSilence {
  id: string;
  state: string;
  created_by: string;
  comment: string;
  starts_at: string;
  ends_at: string;
}

export type IncidentAlert = IncidentDetail['recent_alerts'][number] & {
  labels?: Strings;
  annotations?: Strings;
  generator_url?: string | null;
};

export type IncidentPageData = Omit<IncidentDetail, 'recent_alerts'> & {
  runbook_url?: string | null;
  generator_url?: string | null;
  silences?: MatchingSilence[];
  recent_alerts: IncidentAlert[];
};

/** The incident an approval is for, as the approval carries it. */
export interface ApprovalIncident {
  alert_name: string;
  namespace: string;
  severity: string;
  status: string;
}

export type ApprovalPageData = ApprovalDetail & {
  signers?: number;
  signers_needed?: number;
  signed_by?: string[];
  incident?: ApprovalIncident | null;
  dry_run?: boolean;
  auto_repair?: AutoRepair | null;
};

/** An analysis as listed (`GET /agents/tasks`), newest first. */
export interface TaskSummary {
  task_id: string;
  incident_id: string | null;
  trigger: string;
  state: string;
  progress: number;
  created_at: string;
  completed_at: string | null;
}

export interface TaskList {
  items: TaskSummary[];
  next_cursor: string | null;
}
