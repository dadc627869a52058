import type { Db } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { closingDecision, decisionsOf } from '../approvals/approval-decision-records.js';
import { type Approval, findApproval } from '../approvals/approval-records.js';
import { APPROVAL_ID_MAX_LENGTH } from '../cards/callback-data.js';
import { decodeStoredCard, latestCardOfApproval } from '../cards/card-records.js';
import type { ApprovalCardParams, CardSender, ClosedApproval } from '../cards/card-types.js';
import { findIncident } from '../incidents/incident-records.js';

/**
 * CONTRACT, Chat under storms: approvals summed up in a digest are decided in the console,
 * or "a whitelisted user sends `/card <approval_id>` to the bot to get that approval's card".
 * In a group the chat app writes a command as `/card@<bot_username>`.
 */
const CARD_COMMAND = /^\/card(?:@[A-Za-z0-9_]+)?\s+(\S+)$/;

export interface CardCommand {
  userId: number;
  approvalId: string;
}

/** The `/card` command of a message update; null for anything else. */
export function parseCardCommand(update: unknown): CardCommand | null {
  const message = (update as { message?: unknown } | null)?.message;
  if (!message || typeof message !== 'object') return null;
  const { text, from } = message as { text?: unknown; from?: { id?: unknown } | null };
  if (typeof text !== 'string') return null;
  const match = CARD_COMMAND.exec(text.trim());
  const userId = from?.id;
  const approvalId = match?.[1];
  if (!approvalId || typeof userId !== 'number' || !Number.isInteger(userId)) return null;
  return { userId, approvalId };
}

/**
 * The card to send again: the approval's newest card's parameters (a card summed up in a
 * digest has its row too), with the incident's hit count as it is now. An approval that
 * never had a card (the chat was configured later) gets one built from its own record.
 */
async function cardParamsOf(db: Db, approval: Approval): Promise<ApprovalCardParams> {
  const approvalId = approval.id;
  const incident = approval.incident_id ? await findIncident(db, approval.incident_id) : undefined;
  const row = await latestCardOfApproval(db, approvalId);
  const stored = row ? decodeStoredCard(row.text).params : null;
  if (stored) return incident ? { ...stored, hit_count: incident.hit_count } : stored;
  return {
    approval_id: approval.id,
    risk_level: approval.risk_level,
    resource_name: incident?.target_resource || incident?.workload || approval.action,
    root_cause: approval.description,
    suggested_action: approval.action,
    estimated_downtime: 'unknown',
    ...(incident
      ? { namespace: incident.namespace, hit_count: incident.hit_count, incident_id: incident.id }
      : {}),
  };
}

/** The approval's status and the decision that closed it. */
async function closedApproval(db: Db, approval: Approval): Promise<ClosedApproval> {
  const decisions = await decisionsOf(db, approval.id);
  return { status: approval.status, decided: closingDecision(approval.status, decisions) };
}

/**
 * Sends the approval's card, with a fresh nonce, when a whitelisted user asks for it (once
 * it is no longer pending, a card without buttons saying its status); a stranger, or an approval that does not exist, gets nothing (no card, and no message
 * saying why, so the command tells a stranger nothing about which approvals exist).
 */
export async function answerCardCommand(
  deps: { services: Pick<Services, 'config' | 'log' | 'store'>; cards: CardSender },
  command: CardCommand,
): Promise<void> {
  const { services, cards } = deps;
  const { config, log } = services;
  if (!config.chatWhitelist.includes(String(command.userId))) {
    log.info({ userId: command.userId }, '/card from a user not on CHAT_WHITELIST: no card');
    return;
  }
  if (Array.from(command.approvalId).length > APPROVAL_ID_MAX_LENGTH) return;
  const approval = await findApproval(services.store.db, command.approvalId);
  if (!approval) {
    log.info({ approvalId: command.approvalId }, '/card for an unknown approval: no card');
    return;
  }
  const params = await cardParamsOf(services.store.db, approval);
  // CONTRACT, Under races, crashes and abuse: a decided approval gets no live buttons.
  if (approval.status !== 'pending') {
    await cards.pushClosedOnRequest(params, await closedApproval(services.store.db, approval));
    return;
  }
  await cards.pushOnRequest(params);
}
