import type { Services } from '../../services.js';
import type { CardSender } from './card-types.js';

// Being replaced by the chat feature's real sender (in progress).
export function createCardSender(_services: Services): CardSender {
  return {
    push: async () => ({ sent: false, reason: 'CHAT_BOT_TOKEN is not set' }),
    refreshHitCount: async () => {},
    markDecided: async () => {},
  };
}
