import { GATEWAY_ERRORS } from '../../errors.js';
import type { Services } from '../../services.js';
import { ownValue } from '../../support/own-value.js';
import { formatInZone } from '../../support/zoned-time.js';
import { findApproval } from '../approvals/approval-records.js';
import { findIncident } from '../incidents/incident-records.js';
import { operationsOfApproval } from '../oplog/operation-reads.js';

/** The services this file's functions use. */
type InformationActionsServices = Pick<Services, 'chat' | 'config' | 'store'>;

async function detailsText(
  services: InformationActionsServices,
  approvalId: string,
): Promise<string> {
  const approval = await findApproval(services.store.db, approvalId);
  if (!approval) return GATEWAY_ERRORS.approvalNotFound(approvalId);
  return [
    `Approval ${approval.id}`,
    `Status: ${approval.status} · Risk: ${approval.risk_level}`,
    `Action: ${approval.action}`,
    `Requested by: ${approval.requested_by}`,
    approval.incident_id ? `Incident: ${approval.incident_id}` : '',
    '',
    approval.description,
  ]
    .filter((line, index) => line !== '' || index === 5)
    .join('\n');
}

async function timelineText(
  services: InformationActionsServices,
  approvalId: string,
): Promise<string> {
  const entries = await operationsOfApproval(services.store.db, approvalId, 20);
  if (entries.length === 0) return `No operation-log entries yet for ${approvalId}`;
  const zone = services.config.displayTz;
  return [
    `Timeline of ${approvalId}`,
    ...entries.map(
      (entry) =>
        `${formatInZone(entry.created_at, zone)} ${entry.type} ${entry.success ? '✓' : '✗'} ${entry.actor}: ${entry.action_detail}`,
    ),
  ].join('\n');
}

async function metricsText(
  services: InformationActionsServices,
  approvalId: string,
): Promise<string> {
  const approval = await findApproval(services.store.db, approvalId);
  if (!approval) return GATEWAY_ERRORS.approvalNotFound(approvalId);
  const incident = approval.incident_id
    ? await findIncident(services.store.db, approval.incident_id)
    : undefined;
  const frequency = approval.metadata.anomaly_frequency as Record<string, unknown> | undefined;
  const zone = services.config.displayTz;
  const lines = [`Metrics of ${approvalId}`];
  if (incident) {
    lines.push(
      `${incident.alert_type} on ${incident.namespace}/${incident.workload}`,
      `Hits: ${incident.hit_count}`,
      `First seen: ${formatInZone(incident.first_seen, zone)}`,
      `Last seen: ${formatInZone(incident.last_seen, zone)}`,
    );
  }
  if (frequency) {
    lines.push(
      `Occurrences 1h/24h/7d/30d: ${frequency.count_1h}/${frequency.count_24h}/${frequency.count_7d}/${frequency.count_30d}`,
      `Escalation: ${frequency.escalation_level ?? 'none'}`,
    );
  }
  return lines.length > 1 ? lines.join('\n') : `No metrics recorded for ${approvalId}`;
}

async function analysisText(
  services: InformationActionsServices,
  approvalId: string,
): Promise<string> {
  const approval = await findApproval(services.store.db, approvalId);
  if (!approval) return GATEWAY_ERRORS.approvalNotFound(approvalId);
  const provider = approval.metadata.llm_provider ?? 'rules';
  const confidence = Number(approval.metadata.llm_confidence ?? 0);
  return [
    `Analysis of ${approvalId} (${provider}, confidence ${Math.round(confidence * 100)}%)`,
    approval.description,
  ].join('\n');
}

const ANSWERS: Record<
  string,
  (services: InformationActionsServices, approvalId: string) => Promise<string>
> = {
  details: detailsText,
  logs: timelineText,
  metrics: metricsText,
  analyze: analysisText,
};

/** Information actions answer in the chat; they change nothing. */
export async function answerInformation(
  services: InformationActionsServices,
  action: string,
  approvalId: string,
) {
  const answer = ownValue(ANSWERS, action);
  if (!answer) throw new Error(`Unknown information action: ${action}`);
  const text = await answer(services, approvalId);
  if (services.chat.configured) await services.chat.sendMessage(text);
  return text;
}
