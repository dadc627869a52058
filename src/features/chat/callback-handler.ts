import { GATEWAY_ERRORS } from '../../errors.js';
import type { Services } from '../../services.js';
import { approvalExists } from '../approvals/approval-records.js';
import { type DecisionDeps, decideApproval } from '../approvals/decide-approval.js';
import { refusalMessage } from '../approvals/decision-refusals.js';
import {
  isDecisionAction,
  isInformationAction,
  type ParsedCallback,
  parseCallbackUpdate,
} from '../cards/callback-data.js';
import { findCard } from '../cards/card-records.js';
import { answerCardCommand, parseCardCommand } from './card-command.js';
import { answerInformation } from './information-actions.js';

/** CONTRACT: the acting user is `tg_<user_id>`. */
export const CHAT_PREFIX = 'tg';

export interface CallbackAnswer {
  ok: boolean;
  message: string;
  approval_id?: string;
  status?: string;
  execution_triggered?: boolean;
}

export type CallbackDeps = DecisionDeps;

/**
 * Step 3: whitelist, then the nonce: known for this approval, unexpired, unused. The nonce
 * is used by the decision itself, under the approval's lock (escalation/decide-approval.ts):
 * a refused decision (the same signer again) leaves the card usable by others.
 */
async function validateCallback(
  services: Pick<Services, 'chat' | 'clock' | 'config' | 'log' | 'store'>,
  callback: ParsedCallback,
): Promise<string | null> {
  const { config, store, clock } = services;
  if (!config.chatWhitelist.includes(String(callback.userId))) return GATEWAY_ERRORS.notAuthorized;
  const card = await findCard(store.db, callback.nonce);
  if (!card || card.approval_id !== callback.approvalId) return GATEWAY_ERRORS.invalidNonce;
  const now = clock.now();
  if (card.expires_at <= now) return GATEWAY_ERRORS.nonceExpired;
  if (!(await approvalExists(store.db, callback.approvalId)))
    return GATEWAY_ERRORS.approvalNotFound(callback.approvalId);
  if (isDecisionAction(callback.action) && card.consumed_at !== null) {
    return GATEWAY_ERRORS.alreadyProcessed;
  }
  return null;
}

async function act(deps: CallbackDeps, callback: ParsedCallback): Promise<CallbackAnswer> {
  const { services } = deps;
  const failure = await validateCallback(services, callback);
  if (failure) return { ok: false, message: failure };
  const actor = `${CHAT_PREFIX}_${callback.userId}`;
  const { approvalId, action } = callback;
  if (isInformationAction(action)) {
    await answerInformation(services, action, approvalId);
    return { ok: true, message: `info:${action}`, approval_id: approvalId };
  }
  if (action === 'approve' || action === 'reject') {
    const outcome = await decideApproval(
      deps,
      approvalId,
      action,
      { actor, channel: 'chat' },
      callback.nonce,
    );
    if (!outcome.ok) return { ok: false, message: refusalMessage(approvalId, outcome.refusal) };
    return {
      ok: true,
      message: action === 'approve' ? 'Approved' : 'Rejected',
      approval_id: approvalId,
      status: outcome.status,
      ...(action === 'approve' ? { execution_triggered: outcome.execution_triggered } : {}),
    };
  }
  return { ok: false, message: GATEWAY_ERRORS.unknownAction };
}

/** A `/card <approval_id>` message; its failure is logged, never the update's answer. */
async function followCardCommand(deps: CallbackDeps, update: unknown): Promise<void> {
  const command = parseCardCommand(update);
  if (!command) return;
  try {
    await answerCardCommand(deps, command);
  } catch (error) {
    deps.services.log.warn({ err: error, approvalId: command.approvalId }, '/card not answered');
  }
}

/**
 * spec, Callback handling order, for webhook deliveries and long polling alike. Every
 * callback that reaches the service is answered (`answerCallbackQuery`). A message update
 * may be `/card <approval_id>` (CONTRACT, Chat under storms); its answer stays the spec's
 * for an update without a callback query.
 */
export async function handleChatUpdate(
  deps: CallbackDeps,
  update: unknown,
): Promise<CallbackAnswer> {
  const callback = parseCallbackUpdate(update);
  if (callback === 'not_callback') {
    await followCardCommand(deps, update);
    return { ok: true, message: 'Ignored (not callback_query)' };
  }
  if (callback === 'invalid') return { ok: false, message: GATEWAY_ERRORS.invalidCallbackData };
  let answer: CallbackAnswer;
  try {
    answer = await act(deps, callback);
  } catch (error) {
    answer = { ok: false, message: (error as Error).message || String(error) };
  }
  const { chat, log } = deps.services;
  if (chat.configured) {
    await chat.answerCallback(callback.callbackId, answer.message).catch((error: unknown) => {
      log.warn({ err: error }, 'answerCallbackQuery failed');
    });
  }
  return answer;
}
