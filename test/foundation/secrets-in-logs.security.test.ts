import crypto from 'node:crypto';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { startServerProcess } from '../helpers/server-process.js';
import { callbackUpdate, startTelegramStandIn } from '../helpers/telegram-stand-in.js';
import { chatCompletion, startUpstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';

/** Every secret the service takes (CONTRACT, Bad input: "No secret value … ever appears"). */
const SECRETS = {
  WEBHOOK_SECRET: 'whsec-current-7f3a9c1e',
  WEBHOOK_SECRET_PREVIOUS: 'whsec-previous-2b8d4f6a',
  ERRTRACKER_CLIENT_SECRET: 'trk-client-5e1c9a3b',
  ERRTRACKER_API_TOKEN: 'trk-api-token-8d2f7e4c',
  CONSOLE_TOKEN: 'console-token-3a6b9c2d',
  CHAT_WEBHOOK_SECRET: 'chat-webhook-secret-4c7e1a9f',
  RECEIVER_TOKENS: 'receiver-token-6d1e8b2f',
  LLM_API_KEY: 'llm-api-key-9f4e2b7a',
};
const OPERATOR_KEY = 'operator-key-6d1a8e3f';
const BOT_TOKEN = '123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQr';

function hmac(secret: string, body: string) {
  return crypto.createHmac('sha256', secret).update(body).digest('hex');
}

describe('no secret value reaches a log line or a response', () => {
  it('a full scenario with every secret set, upstreams failing on purpose, at log level trace', async () => {
    const tg = await startTelegramStandIn({ token: BOT_TOKEN });
    // The tracker fails, so its error is logged with whatever it carries; the model answers
    // the tracker analysis (so a comment is attempted) and refuses the experts.
    const tracker = await startUpstream(() => ({
      status: 403,
      body: { detail: 'tracker refuses' },
    }));
    const model = await startUpstream((request) =>
      JSON.stringify(request.body).includes('TypeError')
        ? chatCompletion({
            root_cause: 'a null read',
            impact: 'checkout fails',
            fix_suggestion: 'guard the read',
            prevention: 'a test',
            confidence: 0.8,
          })
        : { status: 401, body: { error: 'bad key' } },
    );
    const server = await startServerProcess({
      ...SECRETS,
      OPERATOR_KEYS: `ops:${OPERATOR_KEY}`,
      CHAT_BOT_TOKEN: BOT_TOKEN,
      CHAT_CHAT_ID: '4242',
      CHAT_API_BASE: tg.apiBase,
      CHAT_WHITELIST: '111',
      CHAT_POLLING: 'true',
      ERRTRACKER_API_BASE: tracker.url,
      ANALYZER: 'openai',
      LLM_BASE_URL: model.url,
      LLM_MODEL: 'test-model',
      APP_ENV: 'staging',
      LOG_LEVEL: 'trace',
      PORT: '0',
      DATA_DIR: tempDir(),
    });
    const responses: string[] = [];
    const call = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${server.url}${path}`, init);
      const text = await response.text();
      // The path is ours (it may hold a token on purpose); the answer is what is scanned.
      responses.push(`${response.status} ${JSON.stringify([...response.headers])} ${text}`);
      return { status: response.status, text };
    };
    const json = { 'content-type': 'application/json' };
    const bearer = { authorization: `Bearer ${SECRETS.CONSOLE_TOKEN}` };

    const alert = JSON.stringify({ alert_name: 'KubePodCrashLooping', namespace: 'leak' });
    const created = await call('/api/v1/webhooks/alerts', {
      method: 'POST',
      body: alert,
      headers: { ...json, 'x-signature-256': `sha256=${hmac(SECRETS.WEBHOOK_SECRET, alert)}` },
    });
    expect(created.status).toBe(200);
    const batch = JSON.stringify({
      alerts: [{ status: 'firing', labels: { alertname: 'DiskFull', namespace: 'leak' } }],
    });
    const received = await call('/api/v1/webhooks/alertmanager', {
      method: 'POST',
      body: batch,
      headers: { ...json, authorization: `Bearer ${SECRETS.RECEIVER_TOKENS}` },
    });
    expect(received.status).toBe(200);
    await call('/api/v1/webhooks/alertmanager', {
      method: 'POST',
      body: batch,
      headers: { ...json, authorization: `Bearer ${SECRETS.RECEIVER_TOKENS}-wrong` },
    });
    const signal = JSON.stringify({ source: 's', alert_name: 'a', target: 't' });
    await call('/api/v1/webhooks/signals', {
      method: 'POST',
      body: signal,
      headers: {
        ...json,
        'x-signature-256': `sha256=${hmac(SECRETS.WEBHOOK_SECRET_PREVIOUS, signal)}`,
      },
    });
    await call('/api/v1/webhooks/signals', {
      method: 'POST',
      body: signal,
      headers: { ...json, 'x-signature-256': `sha256=${'0'.repeat(64)}` },
    });
    const issue = JSON.stringify({
      action: 'triggered',
      data: { issue: { id: 'leak-1', title: 'TypeError', level: 'error', culprit: 'app.js' } },
    });
    await call('/api/v1/webhooks/errtracker/error', {
      method: 'POST',
      body: issue,
      headers: {
        ...json,
        'errtracker-hook-signature': hmac(SECRETS.ERRTRACKER_CLIENT_SECRET, issue),
      },
    });
    const canary = JSON.stringify({
      action: 'triggered',
      data: { issue: { id: 'platform-canary-1', title: 'SourceProviderCanary' } },
    });
    await call('/api/v1/webhooks/errtracker/error', {
      method: 'POST',
      body: canary,
      headers: { ...json, 'x-operator-id': 'ops', 'x-operator-key': OPERATOR_KEY },
    });
    await call('/api/v1/webhooks/errtracker/error', {
      method: 'POST',
      body: canary,
      headers: { ...json, 'x-operator-id': 'ops', 'x-operator-key': `${OPERATOR_KEY}x` },
    });
    const approvalId = JSON.parse(created.text).approval_id as string;
    const card = await waitFor(async () =>
      tg.calls('sendMessage').find((c) => JSON.stringify(c.body).includes(approvalId)),
    );
    const data = card.body.reply_markup!.inline_keyboard![0]![0]!.callback_data;
    tg.failNext('editMessageText', "Bad Request: message can't be edited", 400);
    await call('/api/v1/chatops/webhook', {
      method: 'POST',
      body: JSON.stringify({ update_id: 9, ...callbackUpdate({ data, userId: 111 }) }),
      headers: { ...json, 'x-telegram-bot-api-secret-token': SECRETS.CHAT_WEBHOOK_SECRET },
    });
    await call('/api/v1/chatops/webhook', {
      method: 'POST',
      body: '{}',
      headers: { ...json, 'x-telegram-bot-api-secret-token': 'wrong' },
    });
    tg.failNext('sendMessage', 'Unauthorized', 401);
    await call('/api/v1/chatops/test-push', {
      method: 'POST',
      body: JSON.stringify({ approval_id: approvalId }),
      headers: { ...json, ...bearer },
    });
    await call('/api/v1/agents/analyze', {
      method: 'POST',
      body: JSON.stringify({ severity: 'P2', affected_services: ['checkout'] }),
      headers: { ...json, ...bearer },
    });
    for (const path of [
      '/api/v1/incidents',
      '/api/v1/approvals',
      `/api/v1/approvals/${approvalId}`,
      '/api/v1/signals',
      '/api/v1/operation-log',
      '/api/v1/external-alert-events',
    ]) {
      await call(path, { headers: bearer });
      await call(`${path}?token=${SECRETS.CONSOLE_TOKEN}`);
    }
    await call('/api/v1/chatops/health');
    await call('/metrics');
    await call('/openapi.json');
    // Let the background work (analysis, comment, polling, repair) run and fail.
    await waitFor(
      async () => (tracker.requests.length > 0 || model.requests.length > 1 ? true : undefined),
      {
        what: 'the background calls to the model and tracker',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');

    const log = server.output();
    // The scenario reached the failures whose log lines carry request and error details.
    expect(log).toContain('tracker comment');
    expect(log).toContain('card not marked decided');
    expect(log).not.toMatch(/strict mode/);
    const everything = `${log}\n${responses.join('\n')}`;
    for (const [name, value] of Object.entries({ ...SECRETS, OPERATOR_KEY, BOT_TOKEN })) {
      expect(everything.includes(value), `${name} appears`).toBe(false);
    }
    // The bot token's secret half alone must not show either (URLs carry `bot<token>`).
    expect(everything.includes(BOT_TOKEN.split(':')[1]!)).toBe(false);
  });
});
