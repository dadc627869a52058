import type { ChatPort } from '../../ports/chat.js';

/** Used when no chat bot token is configured: the spec pushes cards only with a token. */
export const noopChat: ChatPort = {
  configured: false,
  async pushApprovalCard() {
    return { sent: false, reason: 'CHAT_BOT_TOKEN is not set' };
  },
};
