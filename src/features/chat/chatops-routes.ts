import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireConsoleToken } from '../../http/access-guards.js';
import { type GuardContext, guarded } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { acceptAnyBody, parseJsonBody } from '../../http/json-body.js';
import { StringEnum } from '../../http/schema-types.js';
import { ChatApiError, type ChatContact } from '../../ports/chat.js';
import type { Credential } from '../../ports/credential-failures.js';
import type { Services } from '../../services.js';
import { equalInConstantTime } from '../../support/constant-time.js';
import type { CardSender } from '../cards/card-types.js';
import { type CallbackDeps, handleChatUpdate } from './callback-handler.js';
import { readLastUpdateId } from './long-polling.js';

/** spec, Test push: the body's defaults. */
export const TEST_PUSH_DEFAULTS = {
  risk_level: 'medium',
  resource_name: 'example-api-7d9f8b6c5-x2x4z',
  root_cause: 'Test push: a placeholder root cause to check the approval card layout.',
  suggested_action: 'DELETE_POD',
  estimated_downtime: '~30s',
  incident_id: '',
} as const;

const TestPushBody = Type.Object({
  approval_id: Type.String({ minLength: 1, maxLength: 38 }),
  risk_level: Type.Optional(
    StringEnum(['low', 'medium', 'high', 'critical'], { default: TEST_PUSH_DEFAULTS.risk_level }),
  ),
  resource_name: Type.Optional(Type.String()),
  root_cause: Type.Optional(Type.String()),
  suggested_action: Type.Optional(Type.String()),
  estimated_downtime: Type.Optional(Type.String()),
  incident_id: Type.Optional(Type.String()),
});

/** spec, Callback handling order: every answer is 200 with `ok` and `message`. */
const CallbackAnswer = Type.Object({
  ok: Type.Boolean(),
  message: Type.String(),
  approval_id: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  execution_triggered: Type.Optional(Type.Boolean()),
});

const TestPushSent = Type.Object({
  ok: Type.Boolean(),
  message: Type.String(),
  chat_response: Type.Object({}, { additionalProperties: true }),
});

/** spec, Chat gateway: `GET /chatops/health`. */
const ChatHealth = Type.Object({
  status: StringEnum(['configured', 'not_configured']),
  mode: Type.Literal('long_polling'),
  polling_active: Type.Boolean(),
  bot_token_set: Type.Boolean(),
  chat_id_set: Type.Boolean(),
  whitelist_count: Type.Integer(),
  last_update_id: Type.Union([Type.Integer(), Type.Null()]),
  environment: Type.String(),
  chat_api: Type.Object({
    state: StringEnum(['not_contacted', 'reachable', 'rate_limited', 'unreachable', 'error']),
    detail: Type.Union([Type.String(), Type.Null()]),
    at: Type.Union([Type.String(), Type.Null()]),
  }),
});

/**
 * CONTRACT note: beside the spec's fields, `chat_api` says how the chat API answered the
 * last call, so a refused connection reads differently from a rate limit or a wrong token.
 */
function describeContact(contact: ChatContact | null) {
  if (!contact) return { state: 'not_contacted' as const, detail: null, at: null };
  return { state: contact.state, detail: contact.detail, at: new Date(contact.at).toISOString() };
}

/** The header the Bot API sends with every webhook delivery once `setWebhook` had a secret. */
export const CHAT_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

const CHAT_WEBHOOK_SECRET: Credential = { kind: 'chat webhook secret' };

/**
 * CONTRACT, Access: a webhook delivery proves it comes from the Bot API by the secret token
 * given to `setWebhook`; without one configured, `prod` takes no deliveries at all.
 * CONTRACT, Under races, crashes and abuse: a wrong secret token is a failed credential,
 * logged and counted like any other, under its own kind.
 */
function requireChatWebhookSecret(context: GuardContext) {
  const { config } = context;
  const expected = config.chatWebhookSecret;
  return guarded(context, (request) => {
    if (!expected) {
      return config.appEnv === 'prod'
        ? { refusal: { error: errors.chatWebhookSecretMissing() } }
        : {};
    }
    const header = request.headers[CHAT_SECRET_HEADER];
    const given = typeof header === 'string' ? header : '';
    if (equalInConstantTime(given, expected)) return { credential: CHAT_WEBHOOK_SECRET };
    const error = errors.chatWebhookSecretInvalid();
    return { credential: CHAT_WEBHOOK_SECRET, refusal: { error, tried: header !== undefined } };
  });
}

export interface ChatopsOptions {
  services: Pick<
    Services,
    'chat' | 'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store'
  >;
  cards: CardSender;
  callbacks: CallbackDeps;
  pollingActive: () => boolean;
}

/** spec, Chat gateway (prefix /chatops). */
export async function chatopsRoutes(untyped: FastifyInstance, options: ChatopsOptions) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services, cards, callbacks } = options;
  const { config } = services;
  // spec: the webhook answers HTTP 200 always, so even an unreadable body (or one too deep
  // to walk safely, or with a content type that does not parse) is an update without a
  // callback_query. Its own scope: the other chat routes read JSON as every route does.
  await app.register(async (webhookScope) => {
    const webhook = webhookScope.withTypeProvider<TypeBoxTypeProvider>();
    acceptAnyBody(
      webhook,
      (_request, raw) => {
        const parsed = parseJsonBody(raw);
        return parsed.ok ? parsed.value : {};
      },
      { guarded: Boolean(config.chatWebhookSecret) },
    );
    webhook.post(
      '/chatops/webhook',
      {
        schema: {
          summary: 'Chat update delivered by webhook (deprecated: the service long-polls)',
          deprecated: true,
          tags: ['chatops'],
          headers: Type.Object({
            [CHAT_SECRET_HEADER]: Type.Optional(
              Type.String({ description: 'the secret_token given to setWebhook' }),
            ),
          }),
          body: Type.Unknown(),
          response: { 200: CallbackAnswer, 401: ErrorBody, 429: ErrorBody },
        },
        onRequest: requireChatWebhookSecret(services),
      },
      async (request) => handleChatUpdate(callbacks, request.body),
    );
  });

  app.post(
    '/chatops/test-push',
    {
      schema: {
        summary: 'Push a test approval card to the chat',
        tags: ['chatops'],
        body: TestPushBody,
        response: {
          200: TestPushSent,
          401: ErrorBody,
          403: ErrorBody,
          422: ErrorBody,
          502: ErrorBody,
        },
      },
      onRequest: [
        requireConsoleToken(options.services),
        // CONTRACT, Under races, crashes and abuse: refused before the body is read, so a
        // client that declares a body and never sends it gets the 403 at once.
        async () => {
          if (config.appEnv === 'prod') throw errors.testPushInProd();
        },
      ],
    },
    async (request) => {
      const { body } = request;
      try {
        const result = await cards.pushTestCard({
          approval_id: body.approval_id,
          risk_level: body.risk_level ?? TEST_PUSH_DEFAULTS.risk_level,
          resource_name: body.resource_name ?? TEST_PUSH_DEFAULTS.resource_name,
          root_cause: body.root_cause ?? TEST_PUSH_DEFAULTS.root_cause,
          suggested_action: body.suggested_action ?? TEST_PUSH_DEFAULTS.suggested_action,
          estimated_downtime: body.estimated_downtime ?? TEST_PUSH_DEFAULTS.estimated_downtime,
          incident_id: body.incident_id ?? TEST_PUSH_DEFAULTS.incident_id,
        });
        if (!result.sent) throw new ChatApiError('sendMessage', result.reason ?? 'not sent');
        return { ok: true, message: 'Test push sent', chat_response: result.chat_response ?? {} };
      } catch (error) {
        if (error instanceof ChatApiError) throw errors.chatApiFailed(error.reason);
        throw error;
      }
    },
  );

  app.get(
    '/chatops/health',
    {
      schema: {
        summary: 'Chat gateway configuration and polling state',
        tags: ['chatops'],
        response: { 200: ChatHealth },
      },
    },
    async () => ({
      status:
        config.chatBotToken && config.chatChatId
          ? ('configured' as const)
          : ('not_configured' as const),
      mode: 'long_polling' as const,
      polling_active: options.pollingActive(),
      bot_token_set: Boolean(config.chatBotToken),
      chat_id_set: Boolean(config.chatChatId),
      whitelist_count: config.chatWhitelist.length,
      last_update_id: await readLastUpdateId(services.store.db),
      environment: config.appEnv,
      chat_api: describeContact(services.chat.lastContact()),
    }),
  );
}
