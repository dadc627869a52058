import { databaseUrl } from './database-url.js';
import {
  addressRanges,
  bearerTokens,
  commaList,
  flag,
  localPath,
  milliseconds,
  oneOf,
  operatorKeys,
  port,
  positiveInteger,
  text,
  timeZone,
  url,
} from './env-variable.js';

export const APP_ENVS = ['development', 'test', 'staging', 'prod'] as const;
export type AppEnv = (typeof APP_ENVS)[number];

// `Config.logLevel` stays a plain string, as pino's option takes it.
const LOG_LEVELS: string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const WEB = ['http:', 'https:'];

// Rows the README shares between two variables.
const TRACKER_API = 'where tracker comments are posted';
const CHAT_BOT = 'chat bot (Telegram Bot API) token and target chat';

/**
 * Every environment variable the service reads, keyed by its field in `Config`. Each
 * description is the README's wording for it (test/foundation/config-readme.test.ts).
 * They are read in this order and the first bad one stops the start, so a variable
 * another one depends on (`DATA_DIR`, `REPAIR_EXECUTOR`, `ANALYZER`) comes before it.
 */
/**
 * The costs a bench bound takes out (bench/README.md, Upper bounds): a repeat alert's write,
 * a new incident's follow-up job, a tracker delivery's stage rows, a signal's append.
 */
export const BENCH_BOUNDS = [
  'converge-write',
  'follow-up',
  'tracker-stages',
  'signal-append',
] as const;
export type BenchBound = (typeof BENCH_BOUNDS)[number];

export const configVariables = {
  dataDir: localPath('DATA_DIR', { default: './var', description: 'where embedded state lives' }),
  repairExecutor: oneOf('REPAIR_EXECUTOR', ['dry-run', 'kubectl'], {
    default: 'dry-run',
    description: '`dry-run` or `kubectl` (with `KUBECTL_CONTEXT`)',
  }),
  kubectlContext: text('KUBECTL_CONTEXT', {
    description:
      'kubeconfig context every `kubectl` step names (`--context`); required when `REPAIR_EXECUTOR=kubectl`',
    requiredWhen: { name: 'REPAIR_EXECUTOR', equals: 'kubectl' },
  }),
  analyzer: oneOf('ANALYZER', ['rules', 'openai'], {
    default: 'rules',
    description:
      '`rules` (built-in, offline) or `openai` (with `LLM_BASE_URL`, `LLM_API_KEY`, `LLM_MODEL`)',
  }),
  llmBaseUrl: url('LLM_BASE_URL', WEB, {
    description:
      'OpenAI-compatible API root with its version, e.g. `https://api.openai.com/v1`; required when `ANALYZER=openai`',
    requiredWhen: { name: 'ANALYZER', equals: 'openai' },
  }),
  port: port('PORT', { default: '8080', description: 'listen port' }),
  host: text('HOST', {
    default: '127.0.0.1',
    description: 'listen address (`0.0.0.0` in containers)',
  }),
  appEnv: oneOf('APP_ENV', APP_ENVS, {
    default: 'development',
    description:
      '`development`, `test`, `staging` or `prod`; `prod` turns on the strict rules (a missing webhook secret rejects)',
  }),
  database: databaseUrl('DATABASE_URL', {
    sqliteDirectory: 'DATA_DIR',
    documentedDefault: 'SQLite file `$DATA_DIR/app.db`',
    description:
      '`postgres://…` or `postgresql://…` selects PostgreSQL (`?schema=` optional); `sqlite:<path>` another SQLite file',
  }),
  redisUrl: url('REDIS_URL', ['redis:', 'rediss:'], {
    documentedDefault: 'unset: embedded stream and pub/sub',
    description:
      '`redis://…` or `rediss://…` selects Redis Streams, pub/sub and the job queue on Redis',
  }),
  /** Prefix for every Redis key and channel; lets several deployments (or tests) share one Redis. */
  redisKeyPrefix: text('REDIS_KEY_PREFIX', {
    default: '',
    description: 'prefix for every Redis key and channel (several deployments on one Redis)',
  }),
  webhookSecret: text('WEBHOOK_SECRET', {
    description: 'HMAC key for `/webhooks/alerts` and `/webhooks/signals`',
  }),
  webhookSecretPrevious: text('WEBHOOK_SECRET_PREVIOUS', {
    description: 'during a rotation, signatures by this key are accepted too',
  }),
  /** CONTRACT, Native receivers: bearer tokens of `POST /webhooks/alertmanager`. */
  receiverTokens: bearerTokens('RECEIVER_TOKENS', {
    description:
      'comma-separated bearer tokens accepted by `/webhooks/alertmanager`, each up to 4096 printable ASCII characters with no space; unset in `prod`, that receiver refuses every delivery',
  }),
  errtrackerClientSecret: text('ERRTRACKER_CLIENT_SECRET', {
    description: 'HMAC key for `errtracker-hook-signature`',
  }),
  errtrackerApiBase: url('ERRTRACKER_API_BASE', WEB, { description: TRACKER_API }),
  errtrackerApiToken: text('ERRTRACKER_API_TOKEN', { description: TRACKER_API }),
  operatorKeys: operatorKeys('OPERATOR_KEYS', {
    default: '',
    description:
      '`id1:key1,id2:key2`: the operators who sign in to the console (the key is checked at once with `GET /api/v1/operators/me`), decide approvals and move incidents there, and send error-tracker canaries',
  }),
  chatBotToken: text('CHAT_BOT_TOKEN', { description: CHAT_BOT }),
  chatChatId: text('CHAT_CHAT_ID', { description: CHAT_BOT }),
  chatApiBase: url('CHAT_API_BASE', WEB, {
    default: 'https://api.telegram.org',
    description: 'Bot API base URL',
  }),
  chatWhitelist: commaList('CHAT_WHITELIST', {
    default: '',
    description: 'comma-separated chat user ids allowed to act on cards',
  }),
  chatPolling: flag('CHAT_POLLING', {
    default: 'true',
    description: 'long-poll `getUpdates` while a token is set',
  }),
  /** CONTRACT, Chat under storms: cards waiting out a 429 beyond this become one digest. */
  chatDigestAfter: positiveInteger('CHAT_DIGEST_AFTER', 1_000_000, {
    default: '20',
    description:
      "cards waiting out the chat API's rate limit (429) beyond this many are sent as one digest message instead",
  }),
  /** CONTRACT, Chat under storms: the console's address in a digest; unset, built from HOST and PORT. */
  publicUrl: url('PUBLIC_URL', WEB, {
    documentedDefault: '`http://<HOST>:<PORT>`',
    description:
      'address people reach the service at; the chat digest links to `<PUBLIC_URL>/console/`',
  }),
  llmApiKey: text('LLM_API_KEY', {
    description: 'sent as `Authorization: Bearer <key>` to `LLM_BASE_URL`',
  }),
  llmModel: text('LLM_MODEL', { description: 'chat model to ask; unset is `gpt-4o-mini`' }),
  readbackDir: localPath('READBACK_DIR', {
    default: './readbacks',
    description: 'committed readback documents',
  }),
  inventoryRoot: localPath('INVENTORY_ROOT', {
    default: '.',
    documentedDefault: 'the working directory',
    description: 'JavaScript workspace for the package inventory',
  }),
  displayTz: timeZone('DISPLAY_TZ', {
    default: 'Asia/Taipei',
    description: 'zone of human-facing times (alert ids are always Asia/Taipei, as the spec says)',
  }),
  logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, {
    default: 'info',
    description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  }),
  consoleToken: text('CONSOLE_TOKEN', {
    description:
      'when set, the read API, test push, `POST /agents/analyze`, the six POST readbacks and `DELETE /heartbeats/{name}` need `Authorization: Bearer <token>`; unset in `prod`, the read API answers 403 and the others stay open (test push aside: `prod` refuses it)',
  }),
  /** CONTRACT, Access: the `secret_token` given to the Bot API's `setWebhook`. */
  chatWebhookSecret: text('CHAT_WEBHOOK_SECRET', {
    description:
      "the `secret_token` given to the Bot API's `setWebhook`; `POST /chatops/webhook` then needs it in `X-Telegram-Bot-Api-Secret-Token`; unset in `prod`, the webhook refuses every delivery",
  }),
  /** CONTRACT, Access: analysis tasks PENDING or RUNNING at once before a 429. */
  analysisMaxInFlight: positiveInteger('ANALYSIS_MAX_IN_FLIGHT', 1_000_000, {
    default: '100',
    description:
      'analysis tasks `PENDING` or `RUNNING` at once; past it `POST /agents/analyze` answers 429 with `Retry-After`',
  }),
  /** CONTRACT, Bad input: request bodies larger than this answer 413. */
  bodyLimitBytes: positiveInteger('BODY_LIMIT_BYTES', 1024 * 1024 * 1024, {
    default: String(1024 * 1024),
    description: 'largest request body; larger ones answer 413',
  }),
  /** CONTRACT, Incident lifecycle: an incident with no alert this long resolves by itself. */
  incidentTimeoutSeconds: positiveInteger('INCIDENT_TIMEOUT_SECONDS', 31_536_000, {
    default: '86400',
    description:
      'an unresolved incident that received no alert for this long resolves by itself (`resolved_by` `timeout`)',
  }),
  /** CONTRACT, Heartbeats: how long Alertmanager's Watchdog may stay quiet. */
  watchdogTimeoutSeconds: positiveInteger('WATCHDOG_TIMEOUT_SECONDS', 604_800, {
    default: '600',
    description:
      'how long a `Watchdog` alert (heartbeat `watchdog:<receiver>`) may stay away before a `HeartbeatMissing` incident opens',
  }),
  /** CONTRACT, Under races, crashes and abuse: "Silences are bounded" (Alertmanager's `--silences.max-silences`). */
  silencesMax: positiveInteger('SILENCES_MAX', 1_000_000, {
    default: '10000',
    description:
      'unexpired silences kept at once, over all replicas; creating one more (or renewing an expired one) answers 400 naming the limit',
  }),
  /** CONTRACT, Under races, crashes and abuse: Alertmanager's `--silences.max-silence-size-bytes`. */
  silenceMaxBytes: positiveInteger('SILENCE_MAX_BYTES', 1024 * 1024, {
    default: '8192',
    description:
      'largest silence, as JSON (matchers, times, creator, comment); a larger one answers 400 naming the limit',
  }),
  /** CONTRACT, Hostile clients: a body not all arrived this long after its request began: 408. */
  requestTimeoutMs: milliseconds('REQUEST_TIMEOUT_MS', 600_000, {
    default: '30000',
    description:
      'a request whose body has not all arrived this long after it began answers 408 and its connection closes; headers get 10 s, or this if shorter',
  }),
  /** CONTRACT, Hostile clients: open connections one client address may hold. */
  maxConnectionsPerClient: positiveInteger('MAX_CONNECTIONS_PER_CLIENT', 1_000_000, {
    default: '256',
    description: 'open connections one client address may hold; further ones are closed at once',
  }),
  /**
   * CONTRACT, Under races, crashes and abuse: open connections over all clients; unset, 80 %
   * of the process's descriptor limit (src/http/server-limits.ts).
   */
  maxConnections: positiveInteger('MAX_CONNECTIONS', 10_000_000, {
    documentedDefault: "80 % of the process's open-file limit",
    description:
      'open connections over all clients; past it the connections idle longest are closed to make room',
  }),
  /**
   * CONTRACT, Under races, crashes and abuse: the reverse proxies whose `X-Forwarded-For`
   * names the client; anyone else's is ignored.
   */
  trustProxy: addressRanges('TRUST_PROXY', {
    documentedDefault: 'none',
    default: '',
    description:
      "comma-separated addresses or CIDR ranges of reverse proxies; a request from one of them is the client's that `X-Forwarded-For` names (throttled, capped and logged as that client), a forwarded address from anyone else is ignored",
  }),
  /** CONTRACT, Hostile clients: live feed streams open at once, over all clients. */
  eventsMaxClients: positiveInteger('EVENTS_MAX_CLIENTS', 1_000_000, {
    default: '500',
    description:
      'live feed (`GET /api/v1/events`) streams open at once (and 20 per client address); past either, 503 with `Retry-After`',
  }),
  /** CONTRACT, Hostile clients: the DNS-rebinding check's names besides loopback. */
  allowedHosts: commaList('ALLOWED_HOSTS', {
    default: '',
    description:
      'comma-separated `Host` names answered besides `localhost` and loopback addresses; while listening on loopback other names get 421, and with this set the list applies on every listen address',
  }),
  /** CONTRACT, Hostile clients: alerts one webhook body may carry. */
  maxAlertsPerBody: positiveInteger('MAX_ALERTS_PER_BODY', 1_000_000, {
    default: '1000',
    description: 'alerts one webhook body may carry; more answer 413 and record nothing',
  }),
  alertRulesFile: text('ALERT_RULES_FILE', {
    description: 'YAML or JSON alert-type match rules (see `config/alert-type-rules.example.yaml`)',
  }),
  /** Run the signal consumer inside the service process (default) or only via `npm run consumer`. */
  signalConsumer: flag('SIGNAL_CONSUMER', {
    default: 'true',
    description: 'run the signal consumer inside the service process',
  }),
  /** A running job's lease: a process that dies while running it holds it no longer. */
  jobLeaseMs: milliseconds(
    'JOB_LEASE_MS',
    600_000,
    {
      default: '20000',
      description:
        "a running job's lease, renewed while it runs: a job whose process died is run again by another once this has passed",
    },
    1000,
  ),
  /** How long the priority work order waits for its live overlay (spec, Priority work order overlay fields: "not shown"; README, Configuration). */
  priorityOverlayTimeoutMs: milliseconds('PRIORITY_OVERLAY_TIMEOUT_MS', 60_000, {
    default: '3000',
    description:
      "deadline of the priority work order's live overlay (and of a composed readback's live source); past it the overlay is `degraded_timeout`",
  }),
  priorityOverlayMode: oneOf('PRIORITY_OVERLAY_MODE', ['ready', 'delegated'], {
    default: 'ready',
    description:
      '`ready` merges the live readbacks into the priority work order; `delegated` points to the dedicated runtime readbacks instead',
  }),
  /** bench/README.md, Upper bounds: read once at start-up; unset, every cost is paid. */
  benchBound: oneOf('BENCH_BOUND', BENCH_BOUNDS, {
    description:
      'for the bench only, refused in prod: takes one cost the service owes out, to measure an upper bound (`converge-write`, `follow-up`, `tracker-stages` or `signal-append`; bench/README.md, Upper bounds)',
  }),
  readbackProbeTimeoutMs: milliseconds('READBACK_PROBE_TIMEOUT_MS', 60_000, {
    default: '5000',
    description:
      'upper bound of each HTTP(S) probe a readback makes (a scorecard may ask for less)',
  }),
};
