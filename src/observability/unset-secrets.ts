import type { Config } from '../config.js';

/** Variables left unset together, and what the service does without them. */
export interface UnsetSecret {
  variables: string[];
  meaning: string;
  /**
   * An endpoint answers anyone without this secret (CONTRACT, Operator console: a `warn` line
   * each). False where the endpoint refuses instead, or where nothing is received (integrations).
   */
  unauthenticated: boolean;
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
    receiverTokens(config, prod),
    config.errtrackerClientSecret
      ? undefined
      : unset(
          ['ERRTRACKER_CLIENT_SECRET'],
          prod
            ? 'POST /api/v1/webhooks/errtracker/error refuses every delivery (401) except canaries sent with operator keys'
            : `error-tracker signatures (errtracker-hook-signature) are not checked: POST /api/v1/webhooks/errtracker/error takes issues from ${OPEN}; canaries need operator keys`,
          !prod,
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
          !prod,
        ),
    consoleToken(config, prod),
    operatorKeys(config),
    config.analyzer === 'openai' && !config.llmApiKey
      ? unset(['LLM_API_KEY'], 'requests to LLM_BASE_URL carry no Authorization header')
      : undefined,
  ];
  return entries.filter((entry): entry is UnsetSecret => entry !== undefined);
}

function unset(variables: string[], meaning: string, unauthenticated = false): UnsetSecret {
  return { variables, meaning, unauthenticated };
}

/** The lines an operator must not miss, whatever LOG_LEVEL keeps of the start-up summary. */
export function warnUnauthenticatedEndpoints(
  config: Config,
  log: { warn(fields: object, message: string): void },
): void {
  for (const { variables, meaning, unauthenticated } of unsetSecrets(config)) {
    if (!unauthenticated) continue;
    for (const variable of variables) log.warn({ variable }, `${variable} is unset: ${meaning}`);
  }
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
    !prod,
  );
}

function receiverTokens(config: Config, prod: boolean): Entry {
  if (config.receiverTokens?.length) return undefined;
  // Every route authenticated as the native receiver (receiver-routes.ts's guard).
  const routes =
    'POST /api/v1/webhooks/alertmanager (and /api/v1/alertmanager/api/v2/alerts, /api/v1/heartbeats/{name})';
  return unset(
    ['RECEIVER_TOKENS'],
    prod
      ? `${routes} refuses every delivery (401)`
      : `${routes} accepts deliveries without a token from ${OPEN}`,
    !prod,
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
  // Guarded by requireConsoleToken alone, which lets everything through without a token, in
  // `prod` too: only the read API is closed there (access-guards.ts).
  const writes =
    'POST /api/v1/agents/analyze, the POST readbacks and DELETE /api/v1/heartbeats/{name}';
  return unset(
    ['CONSOLE_TOKEN'],
    prod
      ? `the read API answers 403, so the console shows no data; ${writes} are open to ${OPEN}`
      : `the read API, silences, the console's data, test push, ${writes} are open to ${OPEN}`,
    true,
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
