import type { Services } from '../../services.js';
import { cardsOfApproval, cutOffCard } from '../cards/card-records.js';
import type { ApprovalCardParams, CardSender } from '../cards/card-types.js';

/**
 * The one way an opened incident or tracker issue gets its approval card. A job run again
 * (its later step failed, or the process died) does not push a second card: the card's row,
 * written before the push, is the record that this step was begun. A card the chat refused
 * (its failure recorded: a timed-out message may still have reached the chat) or one waiting
 * out a 429 is not pushed again. A card cut off before its end was recorded (the process died
 * while the chat was taking it) is sent once more at most, with its own nonce, since the Bot
 * API cannot say whether it landed (CONTRACT, Under races, crashes and abuse). Without a chat
 * there is no card to push, nor one to look for. A failed push is thrown to the caller, which
 * goes on.
 */
export async function pushCardOnce(
  services: Pick<Services, 'chat' | 'store'>,
  cards: CardSender,
  card: ApprovalCardParams,
): Promise<void> {
  if (!services.chat.configured) return;
  const rows = await cardsOfApproval(services.store.db, card.approval_id);
  if (rows.length === 0) {
    await cards.push(card);
    return;
  }
  const cutOff = cutOffCard(rows);
  if (cutOff) await cards.resendCutOff(cutOff);
}
