import { GATEWAY_ERRORS } from '../../errors.js';
import type { DecisionRefusal } from './approval-moves.js';

/**
 * Every decision refusal, worded once: the chat answers the message (`ok` false), the
 * console the same text as its `detail` with the code here.
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

/** The console's code for a refusal: an approval that is not there (404), or a conflict (409). */
export function refusalCode(refusal: DecisionRefusal) {
  switch (refusal.reason) {
    case 'not_found':
      return 'approval_not_found' as const;
    case 'already_decided':
      return 'approval_already_decided' as const;
    case 'same_signer':
      return 'already_signed' as const;
    case 'card_used':
      return 'already_processed' as const;
  }
}
