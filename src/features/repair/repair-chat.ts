import type { Services } from '../../services.js';
import { appendOperation } from '../oplog/operation-log.js';
import type { NotifyResult } from './auto-repair.js';

/**
 * A default NotifyResult: posts the result as a chat message when a bot token is configured
 * (like the card, spec: "pushed only when a chat bot token is configured") and records
 * CHAT_RESULT_SENT, with success false and the gateway's reason when the send failed.
 */
export function notifyResultInChat(
  services: Pick<Services, 'chat' | 'store' | 'clock'>,
): NotifyResult {
  return async (message) => {
    if (!services.chat.configured) return;
    let error: string | null = null;
    let messageId: number | null = null;
    try {
      messageId = (await services.chat.sendMessage(message.text)).message_id;
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
    }
    await appendOperation(
      services.store,
      {
        type: 'CHAT_RESULT_SENT',
        incidentId: message.incident_id,
        approvalId: message.approval_id,
        actor: message.actor,
        actionDetail: error === null ? 'Repair result sent to the chat' : 'Repair result not sent',
        success: error === null,
        errorMessage: error,
        context: { message_id: messageId, text: message.text },
      },
      services.clock.now(),
    );
  };
}
