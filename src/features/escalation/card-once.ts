import type { Services } from '../../services.js';
import { closingDecision, decisionsOf } from '../approvals/approval-decision-records.js';
import { findApproval } from '../approvals/approval-records.js';
import { secondSignerCard } from '../cards/approval-card.js';
import { cardsOfApproval, cutOffCard } from '../cards/card-records.js';
import type { ApprovalCardParams, CardSender, ClosedApproval } from '../cards/card-types.js';

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
    await pushFirstCard(services, cards, card);
    return;
  }
  const cutOff = cutOffCard(rows);
  if (cutOff) await cards.resendCutOff(cutOff);
}

/**
 * CONTRACT, Under races, crashes and abuse: "whatever the order of a first signature and the
 * sending of the first card, the card that the chat ends up showing names the first signer".
 * A signature or decision made before this card (its follow-up ran late) found no card to
 * show it on, so the first card is the one that shows it: asking for the second signer and
 * naming the first, or, for an approval already decided, without buttons and saying its
 * status and who decided it, as `/card` answers for it. A decided approval still gets its
 * card: the chat then shows what became of the incident rather than nothing at all.
 */
async function pushFirstCard(
  services: Pick<Services, 'store'>,
  cards: CardSender,
  card: ApprovalCardParams,
): Promise<void> {
  const { db } = services.store;
  const approval = await findApproval(db, card.approval_id);
  if (!approval) {
    await cards.push(card);
    return;
  }
  const decisions = await decisionsOf(db, approval.id);
  if (approval.status !== 'pending') {
    const closed: ClosedApproval = {
      status: approval.status,
      decided: closingDecision(approval.status, decisions),
    };
    await cards.pushClosed(card, closed);
    return;
  }
  const firstSigner = decisions.find((row) => row.decision === 'approve')?.actor;
  await cards.push(firstSigner === undefined ? card : secondSignerCard(card, firstSigner));
}
