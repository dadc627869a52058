import type { Services } from '../../services.js';
import { hasCardOfApproval } from '../cards/card-records.js';
import type { ApprovalCardParams, CardSender } from '../cards/card-types.js';

/**
 * The one way an opened incident or tracker issue gets its approval card. A job run again
 * (its later step failed, or the process died after the card) does not push a second card:
 * the card's row, written before the push, is the record that this step was done, even when
 * the push failed (it may still have reached the chat). Without a chat there is no card to
 * push, nor one to look for. A failed push is thrown to the caller, which goes on.
 */
export async function pushCardOnce(
  services: Pick<Services, 'chat' | 'store'>,
  cards: CardSender,
  card: ApprovalCardParams,
): Promise<void> {
  if (!services.chat.configured) return;
  if (await hasCardOfApproval(services.store.db, card.approval_id)) return;
  await cards.push(card);
}
