import { GATEWAY_ERRORS } from '../../errors.js';
import type { DecisionRefusal } from '../approvals/approval-moves.js';

/**
 * Every decision refusal, worded once: the chat answers the message (`ok` false), the
 * console the same text as its `detail` with the status here.
 */
export function refusalMessage(approvalId: string, refusal: DecisionRefusal): string {
  switch (refusal.reason) {
    case 'not_found':
      return GATEWAY_ERRORS.approvalNotFound(approvalId);
    case 'already_decided':
      return GATEWAY_ERRORS.approvalAlreadyDecided(refusal.status);
    case 'same_signer':
      return GATEWAY_ERRORS.alreadySigned(refusal.actor);
    case 'card_used':
      return GATEWAY_ERRORS.alreadyProcessed;
  }
}

/** The console's status for a refusal: an approval that is not there, or a conflict. */
export function refusalStatus(refusal: DecisionRefusal): 404 | 409 {
  return refusal.reason === 'not_found' ? 404 : 409;
}
