import { GATEWAY_ERRORS } from '../../errors.js';
import type { Services } from '../../services.js';
import { rejectApproval, signApproval } from '../approvals/approval-moves.js';
import { approvalExists } from '../approvals/approval-records.js';
import { publishEvent } from '../events/feed-events.js';
import { enqueueApprovedExecution } from '../repair/repair-jobs.js';
import {
  isDecisionAction,
  isInformationAction,
  type ParsedCallback,
  parseCallbackUpdate,
} from './callback-data.js';
import {
  consumeCardNonce,
  decodeStoredCard,
  findCard,
  sentCardsOfApproval,
} from './card-records.js';
import type { CardSender } from './card-types.js';
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

export interface CallbackDeps {
  services: Services;
  cards: CardSender;
}

/** Step 3: whitelist, then the nonce: known for this approval, unexpired, unused. */
async function validateCallback(
  services: Services,
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
  if (isDecisionAction(callback.action)) {
    // The single-use check and the use are one statement: concurrent deliveries race here
    // and exactly one wins.
    if (!(await consumeCardNonce(store.db, callback.nonce, now))) {
      return GATEWAY_ERRORS.alreadyProcessed;
    }
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
    return decideApproval(deps, approvalId, action, { actor, channel: 'chat' });
  }
  return { ok: false, message: GATEWAY_ERRORS.unknownAction };
}

/**
 * CONTRACT, Approvals, for every channel (chat, console): one signature approves, critical
 * needs two distinct signers, nothing changes a decided approval. The cards show the
 * decision, an approval starts its execution, and the feed hears of it.
 */
export async function decideApproval(
  deps: CallbackDeps,
  approvalId: string,
  action: 'approve' | 'reject',
  who: { actor: string; channel: string },
): Promise<CallbackAnswer> {
  const { services, cards } = deps;
  const { actor } = who;
  const decider = { ...who, now: services.clock.now() };
  const published = (status: string) =>
    publishEvent(services, 'approval.updated', {
      approval_id: approvalId,
      status,
      decision: action,
      actor,
      channel: who.channel,
    });
  if (action === 'approve') {
    const outcome = await signApproval(services.store, approvalId, decider);
    if (!outcome.ok) return { ok: false, message: outcome.message };
    published(outcome.status);
    if (outcome.status === 'approved') {
      await cards.markDecided(approvalId, 'Approved', actor);
      await enqueueApprovedExecution(services, approvalId, actor, who.channel);
    } else {
      await askSecondSigner(deps, approvalId, actor);
    }
    return {
      ok: true,
      message: 'Approved',
      approval_id: approvalId,
      status: outcome.status,
      execution_triggered: outcome.execution_triggered,
    };
  }
  const outcome = await rejectApproval(services.store, approvalId, decider);
  if (!outcome.ok) return { ok: false, message: outcome.message };
  published(outcome.status);
  await cards.markDecided(approvalId, 'Rejected', actor);
  return { ok: true, message: 'Rejected', approval_id: approvalId, status: outcome.status };
}

/**
 * CONTRACT: critical approvals need two distinct signers. The first signer's card used its
 * nonce, so it is closed and a fresh card (a new nonce) goes out for the second signer.
 */
async function askSecondSigner(deps: CallbackDeps, approvalId: string, actor: string) {
  const { services, cards } = deps;
  const sent = await sentCardsOfApproval(services.store.db, approvalId);
  const latest = sent
    .map((row) => decodeStoredCard(row.text))
    .reverse()
    .find((card) => card.params);
  await cards.markDecided(approvalId, `Signed by ${actor}; waiting for a second signer`, actor);
  if (latest?.params) {
    await cards.push({
      ...latest.params,
      root_cause: `Second signature needed (signed by ${actor}). ${latest.params.root_cause}`,
    });
  }
}

/**
 * spec, Callback handling order, for webhook deliveries and long polling alike. Every
 * callback that reaches the service is answered (`answerCallbackQuery`).
 */
export async function handleChatUpdate(
  deps: CallbackDeps,
  update: unknown,
): Promise<CallbackAnswer> {
  const callback = parseCallbackUpdate(update);
  if (callback === 'not_callback') return { ok: true, message: 'Ignored (not callback_query)' };
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
