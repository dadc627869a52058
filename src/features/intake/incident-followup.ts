import type { Services } from '../../services.js';
import { riskForSeverity } from '../approvals/approval-records.js';
import type { CardSender } from '../chat/card-types.js';
import { enqueueRepairEvaluation } from '../repair/repair-jobs.js';
import { findIncident } from './incident-records.js';

/**
 * What follows a newly opened incident, as a durable job. The name predates this module
 * (it never analysed anything) and is kept so that jobs queued by an earlier release run.
 */
export const INCIDENT_FOLLOW_UP_JOB = 'incident.analyze';
const FOLLOW_UP_CONCURRENCY = 4;

export async function enqueueIncidentFollowUp(services: Services, incidentId: string) {
  await services.jobs.enqueue(
    INCIDENT_FOLLOW_UP_JOB,
    { incident_id: incidentId },
    { jobId: `analyze-${incidentId}` },
  );
}

/**
 * What happens after an incident is created, in order:
 * 1. its approval card goes to the chat (chat/card-sender.ts);
 * 2. auto-repair is evaluated for its approval (repair/repair-jobs.ts → auto-repair.ts).
 * Model analysis is not started here: the spec runs it only when asked (`POST /agents/analyze`).
 */
export async function followNewIncident(
  services: Services,
  cards: CardSender,
  incidentId: string,
): Promise<void> {
  const { store, log } = services;
  const incident = await findIncident(store.db, incidentId);
  if (!incident?.approval_id) {
    log.warn({ incidentId }, 'new incident without an approval: nothing to follow up');
    return;
  }
  try {
    await cards.push({
      approval_id: incident.approval_id,
      risk_level: riskForSeverity(incident.severity),
      resource_name: incident.target_resource || incident.workload,
      root_cause: incident.message || incident.alert_name,
      suggested_action: `Review ${incident.alert_type} on ${incident.namespace}/${incident.workload}`,
      estimated_downtime: 'unknown',
      namespace: incident.namespace,
      hit_count: incident.hit_count,
      incident_id: incident.id,
    });
  } catch (error) {
    // The card is a notification; the approval stands and repair is still evaluated.
    log.error({ err: error, incidentId }, 'approval card not sent');
  }
  await enqueueRepairEvaluation(services, incident.approval_id);
}

export function registerIncidentWorkers(services: Services, cards: CardSender): void {
  services.jobs.process(
    INCIDENT_FOLLOW_UP_JOB,
    (payload) => followNewIncident(services, cards, String(payload.incident_id)),
    FOLLOW_UP_CONCURRENCY,
  );
}
