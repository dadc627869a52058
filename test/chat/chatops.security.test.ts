import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/backends.js';
import { buildTestApp, type TestApp } from '../helpers/build-app.js';
import { describeConsoleTokenGuard } from '../helpers/security-checks.js';
import { startServerProcess } from '../helpers/server-process.js';
import {
  callbackUpdate,
  startTelegramStandIn,
  type TelegramStandIn,
} from '../helpers/telegram-stand-in.js';
import {
  cardFor,
  chatEnv,
  openIncidentCard,
  press,
  SECOND_SIGNER,
  WHITELISTED,
} from './chat-flow.js';

const WEBHOOK_SECRET = 'set-webhook-secret-token';
const crashLoop = {
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  target_resource: 'cart-6b8f9c7d5-k2p9x',
};

function deliver(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  data: string,
  userId: number,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/api/v1/chatops/webhook',
    payload: { update_id: 1, ...callbackUpdate({ data, userId }) },
    headers,
  });
}

describe('chat webhook secret (CONTRACT, Access)', () => {
  let tg: TelegramStandIn;
  let app: TestApp['app'];
  beforeAll(async () => {
    tg = await startTelegramStandIn();
    ({ app } = await buildTestApp({
      env: chatEnv(tg, { CHAT_WEBHOOK_SECRET: WEBHOOK_SECRET }),
    }));
  });
  const approvalOf = async (id: string) => (await app.inject(`/api/v1/approvals/${id}`)).json();

  it.each([
    ['no secret header', {}],
    ['a wrong secret', { 'x-telegram-bot-api-secret-token': `${WEBHOOK_SECRET}x` }],
    ['the secret in another header', { authorization: `Bearer ${WEBHOOK_SECRET}` }],
  ])('a forged approval with %s is 401 and changes nothing', async (what, headers) => {
    const namespace = `forged-${what.replaceAll(' ', '-')}`;
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace });
    const forged = await deliver(
      app,
      `approve:${card.approvalId}:${card.nonce}`,
      WHITELISTED,
      headers,
    );
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toEqual({
      detail: 'Invalid chat webhook secret token',
      code: 'chat_webhook_secret_invalid',
    });
    expect((await approvalOf(card.approvalId)).status).toBe('pending');
    // The nonce is still unused: the real chat can still decide with it.
    const real = await deliver(app, `approve:${card.approvalId}:${card.nonce}`, WHITELISTED, {
      'x-telegram-bot-api-secret-token': WEBHOOK_SECRET,
    });
    expect(real.json()).toMatchObject({ ok: true, message: 'Approved' });
  });

  it('two forged callbacks with different whitelisted ids cannot pass the two-signer rule', async () => {
    const card = await openIncidentCard(app, tg, {
      ...crashLoop,
      severity: 'P0',
      namespace: 'two',
    });
    for (const user of [WHITELISTED, SECOND_SIGNER]) {
      const forged = await deliver(app, `approve:${card.approvalId}:${card.nonce}`, user);
      expect(forged.statusCode).toBe(401);
    }
    const approval = await approvalOf(card.approvalId);
    expect(approval.status).toBe('pending');
    expect(approval.decisions).toEqual([]);
  });

  it('an authenticated delivery is handled as the spec says, 200 always', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: { update_id: 2, message: { text: 'hi' } },
      headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
  });

  it.each(['a/b/c;;;', 'application/json, text/plain', 'text/plain'])(
    'a content type that does not parse (%s) still gets the spec answer, 200',
    async (contentType) => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/chatops/webhook',
        payload: '{"update_id":3}',
        headers: {
          'content-type': contentType,
          'x-telegram-bot-api-secret-token': WEBHOOK_SECRET,
        },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
    },
  );

  it('a body too deep to walk is an update without a callback_query, 200', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: `{"callback_query":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      headers: {
        'content-type': 'application/json',
        'x-telegram-bot-api-secret-token': WEBHOOK_SECRET,
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true, message: 'Ignored (not callback_query)' });
  });
});

describe('chat webhook without a secret', () => {
  it('prod refuses every delivery', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ env: chatEnv(tg, { APP_ENV: 'prod' }) });
    const response = await deliver(app, 'approve:any:0123456789abcdef', WHITELISTED);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      detail: 'Chat webhook secret is not configured',
      code: 'chat_webhook_secret_missing',
    });
  });

  it('prod with the secret takes authenticated deliveries', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({
      env: chatEnv(tg, { APP_ENV: 'prod', CHAT_WEBHOOK_SECRET: WEBHOOK_SECRET }),
    });
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/webhook',
      payload: { update_id: 1 },
      headers: { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
    });
    expect(response.statusCode).toBe(200);
  });

  it('other environments say so in the start-up summary, once', async () => {
    const server = await startServerProcess({
      PORT: '0',
      DATA_DIR: tempDir(),
      APP_ENV: 'development',
    });
    await expect.poll(() => server.output(), { timeout: 10_000 }).toContain('"msg":"started: ');
    const output = server.output();
    expect(output).toMatch(
      /"variables":\["CHAT_WEBHOOK_SECRET"\],"meaning":"POST \/api\/v1\/chatops\/webhook takes chat updates from anyone/,
    );
    const summary = output.split('\n').find((line) => line.includes('"msg":"started: '));
    expect(summary?.match(/CHAT_WEBHOOK_SECRET/g)).toHaveLength(2); // the headline and the entry
    // CONTRACT, Operator console: and one warn line, since the webhook is unauthenticated.
    await expect
      .poll(() => server.output().match(/"level":40,[^\n]*"variable":"CHAT_WEBHOOK_SECRET"/g))
      .toHaveLength(1);
    server.child.kill('SIGKILL');
  });

  it('other environments accept deliveries as the spec says', async () => {
    const tg = await startTelegramStandIn();
    const { app } = await buildTestApp({ env: chatEnv(tg, { APP_ENV: 'staging' }) });
    const response = await deliver(app, 'approve:any:0123456789abcdef', 999);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: false, message: 'User not authorized' });
  });
});

describe('test-push cards are inert (CONTRACT, Access)', () => {
  let tg: TelegramStandIn;
  let app: TestApp['app'];
  beforeAll(async () => {
    tg = await startTelegramStandIn();
    ({ app } = await buildTestApp({ env: chatEnv(tg) }));
  });

  it('a test card for a real approval holds a nonce valid for no approval', async () => {
    const card = await openIncidentCard(app, tg, { ...crashLoop, namespace: 'inert' });
    const push = await app.inject({
      method: 'POST',
      url: '/api/v1/chatops/test-push',
      payload: { approval_id: card.approvalId, incident_id: card.incidentId },
    });
    expect(push.statusCode).toBe(200);
    const keyboard = push.json().chat_response.result.reply_markup.inline_keyboard;
    const testNonce = keyboard[0][0].callback_data.split(':')[2];
    expect(testNonce).toMatch(/^[0-9a-f]{16}$/);
    expect(testNonce).not.toBe(card.nonce);
    for (const action of ['approve', 'reject', 'details', 'analyze']) {
      const response = await press(app, action, { approvalId: card.approvalId, nonce: testNonce });
      expect(response.json()).toEqual({ ok: false, message: 'Invalid nonce' });
    }
    const approval = (await app.inject(`/api/v1/approvals/${card.approvalId}`)).json();
    expect(approval.status).toBe('pending');
    // The real card still works.
    expect((await press(app, 'approve', card)).json()).toMatchObject({ message: 'Approved' });
    expect((await cardFor(app, tg, card.approvalId)).nonce).toBe(card.nonce);
  });
});

const TOKEN = 'console-token-for-chat';
describeConsoleTokenGuard(
  'test push',
  TOKEN,
  [{ method: 'POST', url: '/api/v1/chatops/test-push', payload: { approval_id: 'guarded' } }],
  async () => {
    const tg = await startTelegramStandIn();
    return (await buildTestApp({ env: chatEnv(tg, { CONSOLE_TOKEN: TOKEN }) })).app;
  },
);
