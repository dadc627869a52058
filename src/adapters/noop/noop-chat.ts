import { ChatApiError, type ChatPort } from '../../ports/chat.js';

const notConfigured = () => Promise.reject(new ChatApiError('any', 'CHAT_BOT_TOKEN is not set'));

/** Used when no chat bot token is configured: the spec pushes cards only with a token. */
export const noopChat: ChatPort = {
  configured: false,
  sendMessage: notConfigured,
  editMessage: notConfigured,
  answerCallback: notConfigured,
  getUpdates: notConfigured,
  rateLimitedUntil: () => 0,
  lastContact: () => null,
};
