import type { Config } from '../config.js';

/** Variables left unset together, and what the service does without them. */
export interface UnsetSecret {
  variables: string[];
  meaning: string;
}

type Entry = UnsetSecret | undefined;

const OPEN = 'anyone who can reach the port';

/**
 * Every unset secret or integration that changes what the service does, in plain words for
 * this APP_ENV: `prod` refuses what other modes let through unchecked. Each meaning is
 * what the code that reads the variable does (signed-json.ts, receiver-routes.ts,
 * tracker-webhook.ts, http-tracker.ts, card-sender.ts, access-guards.ts, ...).
 */
export function unsetSecrets(config: Config): UnsetSecret[] {
  const prod = config.appEnv === 'prod';
  const entries: Entry[] = [
    webhookSecret(config, prod),
    config.receiverTokens?.length
      ? undefined
      : unset(
          ['RECEIVER_TOKENS'],
          prod
            ? 'POST /api/v1/webhooks/alertmanager refuses every delivery (401)'
            : `POST /api/v1/webhooks/alertmanager accepts deliveries without a token from ${OPEN}`,
        ),
    config.errtrackerClientSecret
      ? undefined
      : unset(
          ['ERRTRACKER_CLIENT_SECRET'],
          prod
            ? 'POST /api/v1/webhooks/errtracker/error refuses every delivery (401) except canaries sent with operator keys'
            : 'error-tracker signatures (errtracker-hook-signature) are not checked; canaries need operator keys',
        ),
    trackerComments(config),
    ...chat(config),
    config.chatWebhookSecret
      ? undefined
      : unset(
          ['CHAT_WEBHOOK_SECRET'],
          prod
            ? 'POST /api/v1/chatops/webhook refuses every delivery (long polling is not affected)'
            : `POST /api/v1/chatops/webhook takes chat updates from ${OPEN}`,
        ),
    consoleToken(config, prod),
    operatorKeys(config),
    config.analyzer === 'openai' && !config.llmApiKey
      ? unset(['LLM_API_KEY'], 'requests to LLM_BASE_URL carry no Authorization header')
      : undefined,
  ];
  return entries.filter((entry): entry is UnsetSecret => entry !== undefined);
}

function unset(variables: string[], meaning: string): UnsetSecret {
  return { variables, meaning };
}

function webhookSecret(config: Config, prod: boolean): Entry {
  // A rotation's previous key alone still checks signatures (signed-json.ts).
  if (config.webhookSecret || config.webhookSecretPrevious) return undefined;
  const routes = '/api/v1/webhooks/alerts and /api/v1/webhooks/signals';
  return unset(
    ['WEBHOOK_SECRET'],
    prod
      ? `${routes} refuse every delivery (401)`
      : `signatures on ${routes} are not checked: ${OPEN} can send alerts and signals`,
  );
}

function trackerComments(config: Config): Entry {
  if (!config.errtrackerApiBase) {
    const variables = ['ERRTRACKER_API_BASE'];
    if (!config.errtrackerApiToken) variables.push('ERRTRACKER_API_TOKEN');
    return unset(variables, 'analysis results are not posted as tracker comments, only logged');
  }
  if (!config.errtrackerApiToken) {
    return unset(['ERRTRACKER_API_TOKEN'], 'tracker comments are posted without a bearer token');
  }
  return undefined;
}

function chat(config: Config): Entry[] {
  if (!config.chatBotToken) {
    const variables = ['CHAT_BOT_TOKEN'];
    if (!config.chatChatId) variables.push('CHAT_CHAT_ID');
    return [
      unset(
        variables,
        'chat is off: no approval cards or repair results are pushed; decide approvals from the console',
      ),
    ];
  }
  return [
    config.chatChatId
      ? undefined
      : unset(['CHAT_CHAT_ID'], 'approval cards have no chat to go to: every push fails'),
    config.chatWhitelist.length > 0
      ? undefined
      : unset(['CHAT_WHITELIST'], 'nobody may act on cards: every button press is refused'),
  ];
}

function consoleToken(config: Config, prod: boolean): Entry {
  if (config.consoleToken) return undefined;
  const writes = 'POST /api/v1/agents/analyze and the POST readbacks';
  return unset(
    ['CONSOLE_TOKEN'],
    prod
      ? `the read API answers 403, so the console shows no data; ${writes} are open to ${OPEN}`
      : `the read API, the console's data, test push, ${writes} are open to ${OPEN}`,
  );
}

function operatorKeys(config: Config): Entry {
  if (config.operatorKeys.size > 0) return undefined;
  // A canary without operator keys needs a checked hook signature (tracker-auth.ts).
  const canaries = config.errtrackerClientSecret
    ? 'error-tracker canaries need a valid errtracker-hook-signature'
    : 'error-tracker canaries are refused (401)';
  return unset(
    ['OPERATOR_KEYS'],
    `nobody can decide approvals from the console (401); ${canaries}`,
  );
}
