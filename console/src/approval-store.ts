/**
 * The pending approvals the Now view pins at its top: those that wait for this operator's
 * decision. Kept from the lists and the feed's own fields (an approval.created carries its
 * action and risk); free of the DOM so that Node tests who is waited for.
 */
import type { ApprovalSummary, FeedEvent } from './api-types.js';
import { riskRank, severityRank } from './severity.js';

/** The incident an approval is for, as the approval carries it. */
export interface ApprovalIncidentRef {
  alert_name: string;
  namespace: string;
  severity: string;
  /** absent when only the feed named the incident */
  status?: string;
}

export interface PendingApproval {
  id: string;
  incident_id: string | null;
  action: string;
  risk_level: string;
  signers: number;
  signers_needed: number;
  signed_by: string[];
  created_at: string;
  incident: ApprovalIncidentRef | null;
}

/** An approval as listed: what the pinned list shows of it. */
export type ListedApproval = Pick<
  ApprovalSummary,
  | 'id'
  | 'incident_id'
  | 'status'
  | 'action'
  | 'risk_level'
  | 'signers'
  | 'signers_needed'
  | 'signed_by'
  | 'incident'
  | 'created_at'
>;

/** CONTRACT, Approvals: a critical approval needs two distinct signers, any other one. */
export const signersNeededFor = (risk: string) => (risk === 'critical' ? 2 : 1);

/** The actor a console operator signs as (CONTRACT, Approvals: `console_<operator id>`). */
export const consoleActor = (operatorId: string) => `console_${operatorId}`;

/** What an event meant: shown, an approval to read again (its signers changed), or nothing. */
export type ApprovalApplied = 'changed' | 'read' | 'ignored';

export class ApprovalStore {
  private readonly pending = new Map<string, PendingApproval>();

  constructor(private readonly limit = 1000) {}

  get size(): number {
    return this.pending.size;
  }

  /** Approvals read from the service: the pending ones are held, any other is let go. */
  merge(listed: ListedApproval[]): void {
    for (const item of listed) {
      if (item.status !== 'pending') {
        this.pending.delete(item.id);
        continue;
      }
      const held = this.pending.get(item.id);
      this.pending.set(item.id, {
        id: item.id,
        incident_id: item.incident_id,
        action: item.action,
        risk_level: item.risk_level,
        signers: item.signers,
        signers_needed: item.signers_needed,
        signed_by: item.signed_by,
        created_at: item.created_at,
        // The feed may have named the incident of an approval listed without one.
        incident: item.incident ?? held?.incident ?? null,
      });
    }
    this.bound();
  }

  /**
   * One feed event. A new approval is held from the event's own fields; a decision that leaves
   * it pending (a first signature of two) asks for it to be read, to learn who signed.
   */
  apply(
    event: FeedEvent,
    incidentOf: (id: string) => ApprovalIncidentRef | undefined,
  ): ApprovalApplied {
    if (!('approval_id' in event)) return 'ignored';
    const id = event.approval_id;
    if (!id) return 'ignored';
    if (event.type === 'approval.created') {
      const risk = event.risk_level ?? '';
      this.pending.set(id, {
        id,
        incident_id: event.incident_id ?? null,
        action: event.action ?? '',
        risk_level: risk,
        signers: 0,
        signers_needed: signersNeededFor(risk),
        signed_by: [],
        created_at: event.at,
        incident: event.incident_id ? (incidentOf(event.incident_id) ?? null) : null,
      });
      this.bound();
      // Without its action (an older service) the approval is read for its headline.
      return event.action ? 'changed' : 'read';
    }
    if (event.type !== 'approval.updated') return 'ignored';
    if (event.status && event.status !== 'pending') {
      return this.pending.delete(id) ? 'changed' : 'ignored';
    }
    return 'read';
  }

  /** Fills in the incident of approvals that were held before their incident was known. */
  fillIncidents(incidentOf: (id: string) => ApprovalIncidentRef | undefined): void {
    for (const approval of this.pending.values()) {
      if (approval.incident || !approval.incident_id) continue;
      const incident = incidentOf(approval.incident_id);
      if (incident) approval.incident = incident;
    }
  }

  /**
   * The approvals waiting for `operatorId` (those it has not signed), or every pending one
   * when nobody is signed in: the most urgent first (the incident's severity, else the risk),
   * then the newest.
   */
  waitingFor(operatorId: string | null): PendingApproval[] {
    const actor = operatorId ? consoleActor(operatorId) : null;
    // Keys computed once per approval: hundreds wait in a storm, and this runs per redraw.
    return [...this.pending.values()]
      .filter((approval) => !actor || !approval.signed_by.includes(actor))
      .map((approval) => ({
        approval,
        urgency: urgencyOf(approval),
        created: Date.parse(approval.created_at) || 0,
      }))
      .sort(
        (a, b) =>
          a.urgency - b.urgency ||
          b.created - a.created ||
          (a.approval.id < b.approval.id ? -1 : 1),
      )
      .map((item) => item.approval);
  }

  /** Past the limit the oldest are let go: the list call still counts them. */
  private bound(): void {
    while (this.pending.size > this.limit) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined) return;
      this.pending.delete(oldest);
    }
  }
}

function urgencyOf(approval: PendingApproval): number {
  return approval.incident
    ? severityRank(approval.incident.severity)
    : riskRank(approval.risk_level);
}
