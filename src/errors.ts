/**
 * The error catalog: every error the service answers with, built from its code
 * (src/error-codes.ts) and a `detail` for people. Routes throw an HttpError; the app's one
 * error handler turns it into `{"detail": ..., "code": ...}`.
 */
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from './error-codes.js';

export class HttpError extends Error {
  readonly statusCode: number;
  /** Sent as `Retry-After` (seconds) when set. */
  readonly retryAfterS?: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: {
      /** Sent as `Retry-After` (seconds) when set. */
      retryAfterS?: number;
      /** Only for `request_refused`, whose status is the framework's. */
      status?: number;
    } = {},
  ) {
    super(detail);
    this.name = 'HttpError';
    this.statusCode = options.status ?? ERROR_STATUS[code];
    this.retryAfterS = options.retryAfterS;
  }

  get body(): ErrorBody {
    return { detail: this.detail, code: this.code };
  }
}

/** CONTRACT, Bad input: arrays and objects nested deeper than this are refused. */
export const MAX_JSON_DEPTH = 64;

/** CONTRACT, Bad input: the 400s of a body refused before any handler runs. */
export const BODY_PROBLEMS = {
  empty: 'Request body is empty',
  notUtf8: 'Request body is not valid UTF-8',
  tooDeep: `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
  notJson: (reason: string) => `Request body is not valid JSON: ${reason}`,
} as const;

/** How long a client is asked to wait when a dependency is down or hung: about a restart's. */
export const UNAVAILABLE_RETRY_AFTER_S = 5;

const retryLater = { retryAfterS: UNAVAILABLE_RETRY_AFTER_S };
const signalFailure = (reason: string) => `Failed to produce signal: ${reason}`;

/** What `errors.notFound` names, by the code it answers with. */
const NOT_FOUND = {
  incident_not_found: 'Incident',
  approval_not_found: 'Approval',
  silence_not_found: 'Silence',
  heartbeat_not_found: 'Heartbeat',
  external_event_not_found: 'External alert event',
  task_not_found: 'Task',
} as const;

export const errors = {
  // spec, Authentication: "Rejection: HTTP 401, detail `HMAC verification failed: <reason>`"
  hmacFailed: (reason: string) =>
    new HttpError('hmac_failed', `HMAC verification failed: ${reason}`),
  // spec, Errors: signal webhook; CONTRACT, Under races, crashes and abuse: a 503 to retry
  // when the stream's dependency is down or hangs.
  signalNotProduced: (reason: string, dependencyDown = false) =>
    dependencyDown
      ? new HttpError('signal_stream_unavailable', signalFailure(reason), retryLater)
      : new HttpError('signal_not_produced', signalFailure(reason)),
  // CONTRACT, Signals under overload: refused rather than accepted and trimmed away unhandled
  signalBacklogFull: (count: number) =>
    new HttpError(
      'signal_backlog_full',
      signalFailure(`backlog full (${count} signals not yet handled)`),
    ),
  invalidJson: (reason: string) => new HttpError('invalid_json', BODY_PROBLEMS.notJson(reason)),
  /** CONTRACT, Bad input: `problem` is one of BODY_PROBLEMS. */
  badBody: (problem: string) => new HttpError('bad_body', problem),
  validation: (detail: string) => new HttpError('validation_failed', detail),
  bodyTooLarge: (limitBytes: number) =>
    new HttpError('body_too_large', `Request body is larger than the limit of ${limitBytes} bytes`),
  unsupportedMediaType: (type: string) =>
    new HttpError(
      'unsupported_media_type',
      `Unsupported content type: ${type}; send application/json`,
    ),
  unsupportedContentEncoding: (coding: string) =>
    new HttpError(
      'unsupported_content_encoding',
      `Unsupported content encoding: ${coding.slice(0, 64)}; send the body uncompressed`,
    ),
  notFound: (code: keyof typeof NOT_FOUND, id: string) =>
    new HttpError(code, `${NOT_FOUND[code]} not found: ${id}`),
  routeNotFound: (method: string, url: string) =>
    new HttpError('route_not_found', `No route for ${method} ${url}`),
  databaseUnavailable: () =>
    new HttpError('database_unavailable', 'Database unavailable', retryLater),
  // CONTRACT, Under races, crashes and abuse: `dependency` is `Redis`
  dependencyUnavailable: (dependency: string) =>
    new HttpError('dependency_unavailable', `${dependency} unavailable`, retryLater),
  // CONTRACT, Operator console: a decision from the page needs an operator of OPERATOR_KEYS
  operatorInvalid: () => new HttpError('operator_invalid', 'Invalid operator credentials'),
  // CONTRACT, Approvals: a decision refused, worded as the chat words it (GATEWAY_ERRORS)
  decisionRefused: (
    code:
      | 'approval_not_found'
      | 'approval_already_decided'
      | 'already_signed'
      | 'already_processed',
    message: string,
  ) => new HttpError(code, message),
  // Nothing of the request was recorded (its transaction rolled back); retry once space is freed.
  storageFull: () =>
    new HttpError(
      'storage_full',
      'Database storage is full: nothing was recorded, retry once space is freed',
    ),
  /** An error nothing else names: its text stays in the log. */
  internal: () => new HttpError('internal', 'Internal server error'),
  // CONTRACT, Access
  unauthorized: () => new HttpError('unauthorized', 'Unauthorized'),
  readApiClosed: () =>
    new HttpError('read_api_closed', 'Set CONSOLE_TOKEN to use the read API in prod'),
  chatWebhookSecretInvalid: () =>
    new HttpError('chat_webhook_secret_invalid', 'Invalid chat webhook secret token'),
  chatWebhookSecretMissing: () =>
    new HttpError('chat_webhook_secret_missing', 'Chat webhook secret is not configured'),
  // CONTRACT, Native receivers
  receiverTokenInvalid: () => new HttpError('receiver_token_invalid', 'Invalid receiver token'),
  receiverTokensMissing: () =>
    new HttpError('receiver_tokens_missing', 'Receiver tokens are not configured'),
  analysisBusy: () => new HttpError('analysis_busy', 'Too many analysis tasks in progress'),
  // CONTRACT, Silences: Alertmanager answers a refused silence with 400; `problem` is one of
  // SILENCE_PROBLEMS, a matcher's regex error, or a body validation sentence.
  silenceInvalid: (problem: string) => new HttpError('silence_invalid', problem),
  // CONTRACT, Operator console: a list filter the console sends (status, severity, q, since,
  // until, order, ids) with a bad value is a 400; `problem` is one of QUERY_PROBLEMS.
  badQuery: (problem: string) => new HttpError('bad_query', problem),
  // CONTRACT, Incident lifecycle
  incidentAlreadyAcknowledged: () =>
    new HttpError('incident_already_acknowledged', 'Incident already acknowledged'),
  incidentAlreadyResolved: () =>
    new HttpError('incident_already_resolved', 'Incident already resolved'),
  // CONTRACT, Hostile clients
  tooManyFailedCredentials: () =>
    new HttpError(
      'too_many_failed_credentials',
      'Too many failed credentials from this address; retry later',
    ),
  unknownHost: (host: string) =>
    new HttpError('unknown_host', `Unknown host: ${host.slice(0, 256)}`),
  nulInUrl: () => new HttpError('nul_in_url', 'The URL holds a NUL character (%00)'),
  badUrl: () => new HttpError('bad_url', 'The URL holds a malformed percent-encoding'),
  pathSegmentTooLong: (limit: number) =>
    new HttpError('path_segment_too_long', `A path segment is longer than the limit (${limit})`),
  // CONTRACT, Under races, crashes and abuse (Cross-site requests)
  crossSiteRefused: () => new HttpError('cross_site_refused', 'Cross-site request refused'),
  tooManyAlerts: (count: number, limit: number) =>
    new HttpError('too_many_alerts', `Too many alerts in one body: ${count} (limit ${limit})`),
  feedFull: () => new HttpError('feed_full', 'Too many live feed streams open; retry later'),
  // CONTRACT, Under races, crashes and abuse: the feed's Redis is down or hangs
  feedUnavailable: () => new HttpError('feed_unavailable', 'Event feed unavailable', retryLater),
  // A request that reaches a replica after its shutdown began: another replica (or this one,
  // restarted) takes the retry.
  shuttingDown: () =>
    new HttpError('shutting_down', 'The service is shutting down; retry the request'),
  badCursor: () => new HttpError('bad_cursor', 'cursor is not a cursor this service issued'),
  // CONTRACT, Readbacks: E-SNAP. The 500 names the readback; the package inventory, derived
  // from files the operator owns, also says which file and why.
  readbackNotFound: (name: string) =>
    new HttpError('readback_not_found', `Readback data not found: ${name}`),
  readbackInvalid: (name: string, reason?: string) =>
    new HttpError(
      'readback_invalid',
      `Invalid readback data: ${name}${reason ? `: ${reason}` : ''}`,
    ),
  // spec, Errors: "400 POST /agents/analyze: neither incident_id nor severity with affected_services"
  analysisInputMissing: () =>
    new HttpError(
      'analysis_input_missing',
      'Provide incident_id, or severity with affected_services',
    ),
  // spec, `POST /webhooks/errtracker/error`: the signature's 401 names one of
  // TRACKER_SIGNATURE_REASONS; "any unexpected error returns 500 with the error text as detail".
  trackerSignatureFailed: (reason: string) => new HttpError('tracker_signature_failed', reason),
  trackerDeliveryFailed: (text: string) => new HttpError('tracker_delivery_failed', text),
  // CONTRACT, Error-tracker canaries
  canaryUnauthenticated: () =>
    new HttpError('canary_unauthenticated', 'Canary requires operator authentication'),
  canaryNotRecorded: () =>
    new HttpError('canary_not_recorded', 'errtracker upstream canary was not recorded'),
  // spec, Test push
  testPushInProd: () => new HttpError('test_push_in_prod', 'Test push is disabled in production'),
  chatApiFailed: (reason: string) =>
    new HttpError('chat_api_failed', GATEWAY_ERRORS.chatApiFailed(reason)),
  consoleNotBuilt: () =>
    new HttpError('console_not_built', 'The console is not built: run npm run build:console'),
  // What Node refuses before Fastify sees the request (http/server-limits.ts).
  requestTimeout: () => new HttpError('request_timeout', 'Request not received in time'),
  headersTooLarge: () => new HttpError('headers_too_large', 'Request headers are too large'),
  malformedRequest: () => new HttpError('malformed_request', 'Malformed request'),
  /** A 4xx of the web framework's own, with its message and status. */
  requestRefused: (status: number, message: string) =>
    new HttpError('request_refused', message, { status }),
} as const;

/** CONTRACT, Silences: "Validation, as Alertmanager's", worded after its messages. */
export const SILENCE_PROBLEMS = {
  noMatchers: 'at least one matcher required',
  matchesEverything: 'at least one matcher must not match the empty string',
  startNotBeforeEnd: 'start time must be before end time',
  endInPast: "end time can't be in the past",
  noCreator: 'createdBy must not be empty',
  noComment: 'comment must not be empty',
  badFilter: (reason: string) => `Invalid filter: ${reason}`,
  // CONTRACT, Under races, crashes and abuse: "Silences are bounded", each naming its limit.
  tooMany: (most: number) =>
    `too many silences: ${most} unexpired silences already (SILENCES_MAX); expire one first`,
  tooLarge: (bytes: number, most: number) =>
    `silence is ${bytes} bytes as JSON, more than SILENCE_MAX_BYTES (${most})`,
  patternTooLong: (name: string, length: number, most: number) =>
    `regex matcher "${name}" has a pattern of ${length} characters, more than ${most}`,
  compiledTooLarge: (name: string, bytes: number, most: number) =>
    `the regex of matcher "${name}" compiles to ${bytes} bytes, more than ${most} (64 KiB)`,
} as const;

/** The 400s of a list's filters, each naming the query parameter. */
export const QUERY_PROBLEMS = {
  notOneOf: (name: string, value: string, allowed: readonly string[]) =>
    `${name} has ${value}, which is not one of: ${allowed.join(', ')}`,
  noValue: (name: string) => `${name} names no value`,
  tooManyValues: (name: string, count: number, most: number) =>
    `${name} names ${count} values; the most is ${most}`,
  tooLong: (name: string, length: number, most: number) =>
    `${name} holds ${length} characters; the most is ${most}`,
  notDateTime: (name: string) =>
    `${name} is not an ISO 8601 date-time with a time zone, such as 2026-11-26T01:00:00Z`,
  sinceAfterUntil: 'since is later than until',
} as const;

export const HMAC_REASONS = {
  missingHeader: 'Missing X-Signature-256 header',
  badFormat: 'Invalid signature format (expected sha256=...)',
  mismatch: 'Invalid signature',
  missingSecret: 'Webhook secret is not configured',
  // CONTRACT, Extensions: opt-in replay protection
  staleTimestamp: 'Timestamp outside tolerance',
  replayed: 'Replayed delivery',
  badTimestamp: 'Invalid X-Signature-Timestamp header',
} as const;

/** CONTRACT: `errtracker-hook-signature` failures, answered as the 401's detail. */
export const TRACKER_SIGNATURE_REASONS = {
  missingSecret: 'Errtracker client secret is not configured',
  missingHeader: 'Missing errtracker-hook-signature header',
  mismatch: 'Invalid errtracker-hook-signature',
} as const;

/**
 * The `message` of a refused chat callback (spec, Callback handling order; CONTRACT, Chat
 * callbacks: "Gateway errors"), answered to the webhook and to `answerCallbackQuery`. A chat
 * API failure is answered as its exception text (step 3), and is the test push's 502.
 */
export const GATEWAY_ERRORS = {
  invalidCallbackData: 'Invalid callback data',
  notAuthorized: 'User not authorized',
  alreadyProcessed: 'Already processed',
  nonceExpired: 'Nonce expired',
  invalidNonce: 'Invalid nonce',
  approvalNotFound: (approvalId: string) => `Approval not found: ${approvalId}`,
  // CONTRACT, Approvals: acting on an approval that is no longer pending
  approvalAlreadyDecided: (status: string) => `Approval already ${status}`,
  // CONTRACT, Approvals: the same signer signing a pending critical approval again
  alreadySigned: (actor: string) => `Already signed by ${actor}`,
  unknownAction: 'Unknown action',
  chatApiFailed: (reason: string) => `Chat API error: ${reason}`,
} as const;
