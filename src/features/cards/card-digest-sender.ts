import { isRateLimited } from '../../ports/chat.js';
import type { Db } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { findIncident } from '../incidents/incident-records.js';
import {
  consoleAddress,
  DIGEST_MAX_LINES,
  type DigestLine,
  mostSevereFirst,
  renderCardDigest,
} from './card-digest.js';
import type { OutgoingCard } from './card-queue.js';
import { CHAT_GATEWAY_ACTOR } from './card-types.js';

/**
 * The lines of the most severe cards. A card's risk follows its incident's severity one to
 * one (riskForSeverity), so the cards are ranked without reading every incident; the few
 * shown are read for their alert name and their hit count as it is now, not as it was when
 * the card was rendered.
 */
export async function digestLinesOf(db: Db, cards: readonly OutgoingCard[]): Promise<DigestLine[]> {
  const top = mostSevereFirst(
    cards,
    (card) => card.params.risk_level,
    (card) => card.params.hit_count ?? 1,
  ).slice(0, DIGEST_MAX_LINES);
  return Promise.all(
    top.map(async ({ params }) => {
      const incident = params.incident_id ? await findIncident(db, params.incident_id) : undefined;
      // A tracker issue's approval has no incident: its risk and resource stand in.
      return incident
        ? {
            severity: incident.severity,
            alertName: incident.alert_name,
            namespace: incident.namespace,
            hitCount: incident.hit_count,
          }
        : {
            severity: params.risk_level,
            alertName: params.resource_name,
            namespace: params.namespace || 'default',
            hitCount: params.hit_count ?? 1,
          };
    }),
  );
}

/**
 * Sends one digest for `cards` without waiting out a 429 (the queue keeps them and tries
 * again), and records it as one CHAT_SENT entry: the cards' rows stay as they are, without
 * a message id, which is how `/card` and the follow-up's card-once rule still find them.
 */
/** The chat the digests go to, and the card records they are kept in. */
export type DigestSenderDeps = Pick<
  Services,
  'store' | 'chat' | 'clock' | 'config' | 'log' | 'oplog'
>;

export function createDigestSender(services: DigestSenderDeps) {
  const { store, chat, clock, config, log, oplog } = services;

  async function record(cards: readonly OutgoingCard[], messageId: number | null, error: unknown) {
    const success = error === undefined;
    try {
      await oplog.append(
        {
          type: 'CHAT_SENT',
          incidentId: null,
          approvalId: null,
          actor: CHAT_GATEWAY_ACTOR,
          actionDetail: `${success ? 'digest' : 'digest not sent'} of ${cards.length} approval cards to chat ${config.chatChatId ?? ''}`,
          success,
          errorMessage: success ? null : error instanceof Error ? error.message : String(error),
          context: {
            message_id: messageId,
            cards: cards.length,
            // The first few only: a storm's digest may stand for thousands of approvals.
            approval_ids: cards.slice(0, DIGEST_MAX_LINES).map((card) => card.params.approval_id),
          },
        },
        clock.now(),
      );
    } catch (logError) {
      log.error({ err: logError }, 'CHAT_SENT entry of a digest not written');
    }
  }

  return async function sendDigest(cards: OutgoingCard[]): Promise<void> {
    const lines = await digestLinesOf(store.db, cards);
    const text = renderCardDigest(cards.length, lines, consoleAddress(config));
    let messageId: number;
    try {
      messageId = (await chat.sendMessage(text, undefined, { waitOutRateLimit: false })).message_id;
    } catch (error) {
      if (!isRateLimited(error)) await record(cards, null, error);
      throw error;
    }
    await record(cards, messageId, undefined);
  };
}
