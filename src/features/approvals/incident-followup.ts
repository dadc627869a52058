import type { Services } from '../../services.js';
import type { CardSender } from '../chat/card-types.js';
import { riskForSeverity } from './approval-records.js';

/**
 * What follows a newly opened incident, in the background: its approval card goes to the
 * chat, then auto-repair is evaluated for its approval.
 */
export async function followNewIncident(
  services: Services,
  cards: CardSender,
  evaluateRepair: (approvalId: string) => Promise<void>,
  incidentId: string,
): Promise<void> {
  const { store, log } = services;
  const incident = await store.db
    .selectFrom('incidents')
    .selectAll()
    .where('id', '=', incidentId)
    .executeTakeFirst();
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
  await evaluateRepair(incident.approval_id);
}
