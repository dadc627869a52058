import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';

const RECEIVER_TOKEN = 'prod-receiver-token-0123456789abcdef';
const PROD = {
  APP_ENV: 'prod',
  SIGNAL_CONSUMER: 'false',
  WEBHOOK_SECRET: 'prod-webhook-secret-0123456789abcdef0123',
  RECEIVER_TOKENS: RECEIVER_TOKEN,
  CHAT_WEBHOOK_SECRET: 'prod-chat-secret-0123456789abcdef',
  ERRTRACKER_CLIENT_SECRET: 'prod-tracker-secret-0123456789abcdef',
};

describe('heartbeats in prod', () => {
  // CONTRACT, Under races, crashes and abuse (Cross-site requests): "DELETE
  // /api/v1/heartbeats/{name} is guarded as the read API is (403 in prod without
  // CONSOLE_TOKEN)". A beat needs a receiver token; switching the watch off must not need less.
  it('DELETE without CONSOLE_TOKEN is closed (403) and the heartbeat stays watched', async () => {
    const first = await buildTestApp({ env: PROD });
    const beat = await first.app.inject({
      method: 'POST',
      url: '/api/v1/heartbeats/nightly-backup',
      headers: { authorization: `Bearer ${RECEIVER_TOKEN}` },
    });
    expect(beat.statusCode, beat.body).toBe(200);
    const deleted = await first.app.inject({
      method: 'DELETE',
      url: '/api/v1/heartbeats/nightly-backup',
    });
    expect(deleted.statusCode).toBe(403);
    expect(deleted.json()).toEqual({
      detail: 'Set CONSOLE_TOKEN to use the read API in prod',
      code: 'read_api_closed',
    });
    await first.app.close();

    const token = 'prod-console-token-0123456789abcdef';
    const { app } = await buildTestApp({ reuse: first, env: { CONSOLE_TOKEN: token } });
    const list = await app.inject({
      url: '/api/v1/heartbeats',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.json().items.map((item: { name: string }) => item.name)).toEqual([
      'nightly-backup',
    ]);
  });
});
