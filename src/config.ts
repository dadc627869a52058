import path from 'node:path';

export const APP_ENVS = ['development', 'test', 'staging', 'prod'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

export type DatabaseConfig =
  | { kind: 'sqlite'; file: string }
  | { kind: 'postgres'; url: string; schema?: string };

export interface Config {
  port: number;
  host: string;
  appEnv: AppEnv;
  dataDir: string;
  database: DatabaseConfig;
  redisUrl?: string;
  /** Prefix for every Redis key and channel; lets several deployments (or tests) share one Redis. */
  redisKeyPrefix: string;
  webhookSecret?: string;
  webhookSecretPrevious?: string;
  errtrackerClientSecret?: string;
  repairExecutor: 'dry-run' | 'kubectl';
  kubectlContext?: string;
  errtrackerApiBase?: string;
  errtrackerApiToken?: string;
  operatorKeys: Map<string, string>;
  chatBotToken?: string;
  chatChatId?: string;
  chatApiBase: string;
  chatWhitelist: string[];
  chatPolling: boolean;
  analyzer: 'rules' | 'openai';
  llmBaseUrl?: string;
  llmApiKey?: string;
  llmModel?: string;
  readbackDir: string;
  inventoryRoot: string;
  displayTz: string;
  logLevel: string;
  consoleToken?: string;
  /** CONTRACT, Access: the `secret_token` given to the Bot API's `setWebhook`. */
  chatWebhookSecret?: string;
  /** CONTRACT, Access: analysis tasks PENDING or RUNNING at once before a 429. */
  analysisMaxInFlight: number;
  /** CONTRACT, Bad input: request bodies larger than this answer 413. */
  bodyLimitBytes: number;
  alertRulesFile?: string;
  /** Run the signal consumer inside the service process (default) or only via `npm run consumer`. */
  signalConsumer: boolean;
  /** How long the priority work order waits for its live overlay (spec: "not shown"; issue 6: 3 s). */
  priorityOverlayTimeoutMs: number;
  /** `ready` merges the live readbacks; `delegated` points to the dedicated readbacks instead. */
  priorityOverlayMode: 'ready' | 'delegated';
  /** Upper bound of each public HTTPS probe a readback makes. */
  readbackProbeTimeoutMs: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = optional(env, name) ?? fallback;
  if (!allowed.includes(value as T)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function booleanVar(env: Env, name: string, fallback: boolean): boolean {
  const value = optional(env, name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(name, `must be true or false, got "${value}"`);
}

function portVar(env: Env, name: string, fallback: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(name, `must be a port number from 0 to 65535, got "${raw}"`);
  }
  return port;
}

function urlVar(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = optional(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'is not a parsable URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

function parseDatabase(env: Env, dataDir: string): DatabaseConfig {
  const raw = optional(env, 'DATABASE_URL');
  if (raw === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'app.db') };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!file) throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path');
    return { kind: 'sqlite', file };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a parsable URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      'DATABASE_URL',
      `must be postgres://… or sqlite:<path>, got "${url.protocol}"`,
    );
  }
  // `?schema=` is ours, not libpq's: it scopes every table to one PostgreSQL schema.
  const schema = url.searchParams.get('schema') ?? undefined;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ConfigError('DATABASE_URL', 'schema must be a lower-case identifier');
  }
  url.searchParams.delete('schema');
  return { kind: 'postgres', url: url.toString(), schema };
}

function millisecondsVar(env: Env, name: string, fallback: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 1 || ms > max) {
    throw new ConfigError(
      name,
      `must be a whole number of milliseconds from 1 to ${max}, got "${raw}"`,
    );
  }
  return ms;
}

function positiveIntegerVar(env: Env, name: string, fallback: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ConfigError(name, `must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return value;
}

function parseOperatorKeys(env: Env): Map<string, string> {
  const keys = new Map<string, string>();
  const raw = optional(env, 'OPERATOR_KEYS');
  if (raw === undefined) return keys;
  for (const pair of raw.split(',')) {
    const trimmed = pair.trim();
    if (!trimmed) continue;
    const colon = trimmed.indexOf(':');
    if (colon <= 0 || colon === trimmed.length - 1) {
      throw new ConfigError('OPERATOR_KEYS', 'must be id1:key1,id2:key2');
    }
    keys.set(trimmed.slice(0, colon), trimmed.slice(colon + 1));
  }
  return keys;
}

function parseTimeZone(env: Env): string {
  const zone = optional(env, 'DISPLAY_TZ') ?? 'Asia/Taipei';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError('DISPLAY_TZ', `is not a known time zone: "${zone}"`);
  }
  return zone;
}

/** Parses the environment once; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const dataDir = path.resolve(cwd, optional(env, 'DATA_DIR') ?? './var');
  const repairExecutor = oneOf(env, 'REPAIR_EXECUTOR', ['dry-run', 'kubectl'], 'dry-run');
  const kubectlContext = optional(env, 'KUBECTL_CONTEXT');
  if (repairExecutor === 'kubectl' && !kubectlContext) {
    throw new ConfigError('KUBECTL_CONTEXT', 'is required when REPAIR_EXECUTOR=kubectl');
  }
  const analyzer = oneOf(env, 'ANALYZER', ['rules', 'openai'], 'rules');
  const llmBaseUrl = urlVar(env, 'LLM_BASE_URL', ['http:', 'https:']);
  if (analyzer === 'openai' && !llmBaseUrl) {
    throw new ConfigError('LLM_BASE_URL', 'is required when ANALYZER=openai');
  }
  return {
    port: portVar(env, 'PORT', 8080),
    host: optional(env, 'HOST') ?? '127.0.0.1',
    appEnv: oneOf(env, 'APP_ENV', APP_ENVS, 'development'),
    dataDir,
    database: parseDatabase(env, dataDir),
    redisUrl: urlVar(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: optional(env, 'REDIS_KEY_PREFIX') ?? '',
    webhookSecret: optional(env, 'WEBHOOK_SECRET'),
    webhookSecretPrevious: optional(env, 'WEBHOOK_SECRET_PREVIOUS'),
    errtrackerClientSecret: optional(env, 'ERRTRACKER_CLIENT_SECRET'),
    repairExecutor,
    kubectlContext,
    errtrackerApiBase: urlVar(env, 'ERRTRACKER_API_BASE', ['http:', 'https:']),
    errtrackerApiToken: optional(env, 'ERRTRACKER_API_TOKEN'),
    operatorKeys: parseOperatorKeys(env),
    chatBotToken: optional(env, 'CHAT_BOT_TOKEN'),
    chatChatId: optional(env, 'CHAT_CHAT_ID'),
    chatApiBase: urlVar(env, 'CHAT_API_BASE', ['http:', 'https:']) ?? 'https://api.telegram.org',
    chatWhitelist: (optional(env, 'CHAT_WHITELIST') ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
    chatPolling: booleanVar(env, 'CHAT_POLLING', true),
    analyzer,
    llmBaseUrl,
    llmApiKey: optional(env, 'LLM_API_KEY'),
    llmModel: optional(env, 'LLM_MODEL'),
    readbackDir: path.resolve(cwd, optional(env, 'READBACK_DIR') ?? './readbacks'),
    inventoryRoot: path.resolve(cwd, optional(env, 'INVENTORY_ROOT') ?? '.'),
    displayTz: parseTimeZone(env),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    consoleToken: optional(env, 'CONSOLE_TOKEN'),
    chatWebhookSecret: optional(env, 'CHAT_WEBHOOK_SECRET'),
    analysisMaxInFlight: positiveIntegerVar(env, 'ANALYSIS_MAX_IN_FLIGHT', 100, 1_000_000),
    bodyLimitBytes: positiveIntegerVar(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024 * 1024 * 1024),
    alertRulesFile: optional(env, 'ALERT_RULES_FILE'),
    signalConsumer: booleanVar(env, 'SIGNAL_CONSUMER', true),
    priorityOverlayTimeoutMs: millisecondsVar(env, 'PRIORITY_OVERLAY_TIMEOUT_MS', 3000, 60_000),
    priorityOverlayMode: oneOf(env, 'PRIORITY_OVERLAY_MODE', ['ready', 'delegated'], 'ready'),
    readbackProbeTimeoutMs: millisecondsVar(env, 'READBACK_PROBE_TIMEOUT_MS', 5000, 60_000),
  };
}

/** For the entry points: one line naming the bad variable, then exit 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Invalid configuration: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
