import type { FastifyInstance } from 'fastify';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import type { InlineKeyboard } from '../../src/ports/chat.js';
import { postSigned } from '../helpers/build-app.js';
import { callbackUpdate, type TelegramStandIn } from '../helpers/telegram-stand-in.js';

export const WHITELISTED = 111;
export const SECOND_SIGNER = 222;
export const STRANGER = 999;

export function chatEnv(tg: TelegramStandIn, extra: Record<string, string> = {}) {
  return {
    CHAT_BOT_TOKEN: tg.token,
    CHAT_CHAT_ID: '4242',
    CHAT_API_BASE: tg.apiBase,
    CHAT_WHITELIST: `${WHITELISTED},${SECOND_SIGNER}`,
    CHAT_POLLING: 'false',
    SIGNAL_CONSUMER: 'false',
    ...extra,
  };
}

export interface SentCard {
  messageId: number;
  approvalId: string;
  nonce: string;
  keyboard: InlineKeyboard;
  text: string;
}

/** Opens an incident through the alert webhook and waits for its approval card. */
export async function openIncidentCard(
  app: FastifyInstance,
  tg: TelegramStandIn,
  alert: Record<string, unknown>,
): Promise<SentCard & { incidentId: string }> {
  const created = (await postSigned(app, '/api/v1/webhooks/alerts', alert)).json();
  const card = await cardFor(app, tg, created.approval_id);
  return { ...card, incidentId: created.incident_id };
}

/**
 * Sends one more real card for an approval through the service's own card sender, as the
 * service does for a second signer: a valid nonce for that approval, whatever its state.
 */
export async function pushAnotherCard(app: FastifyInstance, approvalId: string): Promise<void> {
  await createCardSender(app.services).push({
    approval_id: approvalId,
    risk_level: 'medium',
    resource_name: 'checkout-7d9f8b6c5-x2x4z',
    root_cause: 'another card for the same approval',
    suggested_action: 'DELETE_POD',
    estimated_downtime: '~30s',
    incident_id: '',
  });
}

export async function cardFor(
  app: FastifyInstance,
  tg: TelegramStandIn,
  approvalId: string,
  nth = 1,
): Promise<SentCard> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const sent = tg
      .calls('sendMessage')
      .filter((call) =>
        call.body.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data?.includes(
          `:${approvalId}:`,
        ),
      );
    const call = sent[nth - 1];
    if (call) {
      const keyboard = call.body.reply_markup!.inline_keyboard!;
      const [, , nonce] = keyboard[0]![0]!.callback_data.split(':');
      const row = await app.services.store.db
        .selectFrom('chat_cards')
        .select('message_id')
        .where('nonce', '=', nonce!)
        .executeTakeFirst();
      if (row?.message_id) {
        return {
          messageId: row.message_id,
          approvalId,
          nonce: nonce!,
          keyboard,
          text: call.body.text ?? '',
        };
      }
    }
    if (Date.now() > deadline) throw new Error(`no card for ${approvalId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function press(
  app: FastifyInstance,
  action: string,
  card: { approvalId: string; nonce: string },
  userId = WHITELISTED,
) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/chatops/webhook',
    payload: {
      update_id: 1,
      ...callbackUpdate({ data: `${action}:${card.approvalId}:${card.nonce}`, userId }),
    },
  });
}
