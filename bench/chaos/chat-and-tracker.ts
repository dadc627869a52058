import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lib/service.js';
import { CHAOS_CHAT_WEBHOOK_SECRET, CHAOS_TRACKER_SECRET } from './cluster.js';
import type { FaultyPeer } from './peers.js';
import { type Answer, send } from './requests.js';

// What the replicas need to talk to the chat and tracker stand-ins, and the deliveries those
// services send us: shared by the races and upstream-fault scenarios.

export const CHAT_TOKEN = 'chaos-bot-token';
export const CHAT_ID = '4242';
/** The one chat user allowed to act on cards. */
export const CHAT_USER = 111;

/** The replicas' chat (and, when given, tracker) settings, all pointing at stand-ins. */
export function peerEnv(chat: FaultyPeer, tracker?: FaultyPeer): Record<string, string> {
  return {
    CHAT_BOT_TOKEN: CHAT_TOKEN,
    CHAT_CHAT_ID: CHAT_ID,
    CHAT_API_BASE: chat.url,
    CHAT_POLLING: 'false',
    CHAT_WHITELIST: String(CHAT_USER),
    ...(tracker ? { ERRTRACKER_API_BASE: tracker.url, ERRTRACKER_API_TOKEN: 'chaos-token' } : {}),
  };
}

/** The published issue-alert example with its issue id replaced, as its raw JSON text. */
export function issueAlertBody(issueId: string): string {
  const fixture = path.join(REPO_ROOT, 'test/fixtures/errtracker/issue-alert-triggered.json');
  const body = JSON.parse(fs.readFileSync(fixture, 'utf8')) as {
    action: string;
    data: { event: Record<string, unknown> };
  };
  body.action = 'triggered';
  body.data.event.issue_id = issueId;
  return JSON.stringify(body);
}

/** One signed delivery to the error-tracker webhook. */
export function postTrackerDelivery(baseUrl: string, body: string): Promise<Answer> {
  const signature = crypto.createHmac('sha256', CHAOS_TRACKER_SECRET).update(body).digest('hex');
  return send(`${baseUrl}/api/v1/webhooks/errtracker/error`, {
    body,
    headers: { 'content-type': 'application/json', 'errtracker-hook-signature': signature },
  });
}

/** The Telegram update a press of a card's button delivers through the webhook. */
export function callbackUpdate(updateId: number, data: string, messageId: number) {
  return {
    update_id: updateId,
    callback_query: {
      id: `chaos-callback-${updateId}`,
      data,
      from: { id: CHAT_USER, username: 'chaos_operator' },
      message: { message_id: messageId, chat: { id: Number(CHAT_ID) } },
    },
  };
}

export function postCallback(baseUrl: string, update: unknown): Promise<Answer> {
  return send(`${baseUrl}/api/v1/chatops/webhook`, {
    body: JSON.stringify(update),
    headers: {
      'content-type': 'application/json',
      'x-telegram-bot-api-secret-token': CHAOS_CHAT_WEBHOOK_SECRET,
    },
  });
}
