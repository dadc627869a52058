import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';
import { freePort } from '../helpers/private-services.js';
import {
  callbackUpdate,
  startTelegramStandIn,
  type TelegramStandIn,
} from '../helpers/telegram-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';
import { chatEnv, openIncidentCard, WHITELISTED } from './chat-flow.js';

describe('POST /chatops/test-push', () => {
  let tg: TelegramStandIn;
  beforeAll(async () => {
    tg = await startTelegramStandIn();
  });

  it('sends a card with the spec defaults and answers with the chat response', async () => {
    const { app } = await buildTestApp({ env: chatEnv(tg) });
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: 'test-approval-1' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      ok: true,
      message: 'Test push sent',
      chat_response: expect.any(Object),
    });
    const sent = tg.calls('sendMessage').at(-1)!.body;
    expect(sent.text).toContain('DELETE_POD');
    expect(sent.text).toContain('~30s');
    expect(sent.text).toMatch(/medium/i);
    expect(sent.reply_markup!.inline_keyboard).toHaveLength(1);
    const withIncident = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: 'test-approval-2', incident_id: 'inc-1' },
    });
    expect(withIncident.statusCode).toBe(200);
    expect(tg.calls('sendMessage').at(-1)!.body.reply_markup!.inline_keyboard).toHaveLength(2);
  });

  it('is 403 in prod', async () => {
    const { app } = await buildTestApp({ env: { ...chatEnv(tg), APP_ENV: 'prod' } });
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: 'x' },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      detail: 'Test push is disabled in production',
      code: 'test_push_in_prod',
    });
  });

  it.each(['development', 'test', 'staging'])('works in %s', async (appEnv) => {
    const { app } = await buildTestApp({ env: { ...chatEnv(tg), APP_ENV: appEnv } });
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: 'x' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('is 502 Chat API error: <reason> when the gateway fails', async () => {
    const { app } = await buildTestApp({ env: chatEnv(tg) });
    tg.failNext('sendMessage', 'Bad Request: chat not found', 400);
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: 'x' },
    });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toEqual({
      detail: 'Chat API error: Bad Request: chat not found',
      code: 'chat_api_failed',
    });
  });

  it('is 422 without an approval id', async () => {
    const { app } = await buildTestApp({ env: chatEnv(tg) });
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: {},
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      detail: 'body.approval_id is required',
      code: 'validation_failed',
    });
  });
});

describe('GET /chatops/health', () => {
  it('reports not_configured without a token', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    expect((await app.inject('/api/v1/chatops/health')).json()).toEqual({
      status: 'not_configured',
      mode: 'long_polling',
      polling_active: false,
      bot_token_set: false,
      chat_id_set: false,
      whitelist_count: 0,
      last_update_id: null,
      environment: 'test',
      chat_api: { state: 'not_contacted', detail: null, at: null },
    });
  });

  it('reports configuration and polling', async () => {
    const tg = await startTelegramStandIn({ maxLongPollMs: 100 });
    const { app } = await buildTestApp({ env: chatEnv(tg, { CHAT_POLLING: 'true' }) });
    expect((await app.inject('/api/v1/chatops/health')).json()).toMatchObject({
      status: 'configured',
      polling_active: true,
      bot_token_set: true,
      chat_id_set: true,
      whitelist_count: 2,
    });
    const health = await waitFor(async () => {
      const body = (await app.inject('/api/v1/chatops/health')).json();
      return body.chat_api.state === 'not_contacted' ? undefined : body;
    });
    expect(health.chat_api).toEqual({ state: 'reachable', detail: null, at: expect.any(String) });
  });

  it('tells a chat API that refuses every connection: polling not active, unreachable', async () => {
    // Nothing listens there: every connection is refused.
    const closedPort = await freePort();
    const tg = await startTelegramStandIn();
    const env = chatEnv(tg, {
      CHAT_POLLING: 'true',
      CHAT_API_BASE: `http://127.0.0.1:${closedPort}`,
    });
    const { app } = await buildTestApp({ env });
    const health = await waitFor(async () => {
      const body = (await app.inject('/api/v1/chatops/health')).json();
      return body.chat_api.state === 'unreachable' ? body : undefined;
    });
    expect(health).toMatchObject({ status: 'configured', polling_active: false });
    expect(health.chat_api.detail).toMatch(/ECONNREFUSED/);
  });
});

describe('long polling', () => {
  it('handles callbacks from getUpdates and neither replays nor skips across a restart', async () => {
    const tg = await startTelegramStandIn({ maxLongPollMs: 100 });
    const first = await buildTestApp({ env: chatEnv(tg, { CHAT_POLLING: 'true' }) });
    const card = await openIncidentCard(first.app, tg, {
      alert_name: 'KubePodCrashLooping',
      target_resource: 'poll-1',
    });
    tg.queueUpdate(
      callbackUpdate({ data: `details:${card.approvalId}:${card.nonce}`, userId: WHITELISTED }),
    );
    await tg.waitForCalls('answerCallbackQuery', 1);
    const saved = await waitFor(async () => {
      const health = (await first.app.inject('/api/v1/chatops/health')).json();
      return health.last_update_id !== null ? health.last_update_id : undefined;
    });
    await first.close();

    const approveId = tg.queueUpdate(
      callbackUpdate({ data: `approve:${card.approvalId}:${card.nonce}`, userId: WHITELISTED }),
    );
    expect(approveId).toBeGreaterThan(saved);
    const second = await buildTestApp({ reuse: first, env: { CHAT_POLLING: 'true' } });
    const answers = await tg.waitForCalls('answerCallbackQuery', 2);
    expect(answers.map((call) => call.body.text)).toEqual(['info:details', 'Approved']);
    const status = (await second.app.inject(`/api/v1/approvals/${card.approvalId}`)).json().status;
    expect(['approved', 'executing', 'executed']).toContain(status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(tg.calls('answerCallbackQuery')).toHaveLength(2);
  });

  it('backs off and keeps polling after errors', async () => {
    const tg = await startTelegramStandIn({ maxLongPollMs: 50 });
    tg.failNext('getUpdates', 'Internal Server Error', 500);
    tg.dropNext('getUpdates');
    const { app } = await buildTestApp({ env: chatEnv(tg, { CHAT_POLLING: 'true' }) });
    await waitFor(async () => (tg.calls('getUpdates').length >= 3 ? true : undefined), {
      timeoutMs: 15_000,
    });
    // Active again once a poll is answered after the failures.
    await waitFor(async () =>
      (await app.inject('/api/v1/chatops/health')).json().polling_active ? true : undefined,
    );
  });
});
