import type { Services } from '../../services.js';
import type { NotifyResult } from './repair-deps.js';

/**
 * After the chat last asked to wait (429), results stay out of it this long: in a storm the
 * chat's few messages a minute go to new cards and their digest (CONTRACT, Chat under
 * storms), and a result is in the operation log and the console either way.
 */
const QUIET_AFTER_FLOOD_MS = 60_000;

/**
 * A default NotifyResult: posts the result as a chat message when a bot token is configured
 * (like the card, spec: "pushed only when a chat bot token is configured") and records
 * CHAT_RESULT_SENT, with success false and the gateway's reason when the send failed or
 * was held back because the chat was flooded.
 */
export function notifyResultInChat(
  services: Pick<Services, 'chat' | 'oplog' | 'clock'>,
): NotifyResult {
  return async (message) => {
    if (!services.chat.configured) return;
    let error: string | null = null;
    let messageId: number | null = null;
    if (services.chat.rateLimitedUntil() + QUIET_AFTER_FLOOD_MS > Date.now()) {
      error = 'not sent: the chat asked to wait (429) within the last minute';
    } else {
      try {
        messageId = (await services.chat.sendMessage(message.text)).message_id;
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown);
      }
    }
    await services.oplog.append(
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
