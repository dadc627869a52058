/**
 * The error catalog: every fixed `detail` string the service answers with, named once.
 * Routes throw an HttpError; the app's one error handler turns it into `{"detail": ...}`.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    /** Sent as `Retry-After` (seconds) when set. */
    readonly retryAfterS?: number,
  ) {
    super(detail);
    this.name = 'HttpError';
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

export const errors = {
  // spec, Authentication: "Rejection: HTTP 401, detail `HMAC verification failed: <reason>`"
  hmacFailed: (reason: string) => new HttpError(401, `HMAC verification failed: ${reason}`),
  // spec, Errors: signal webhook; CONTRACT, Under races, crashes and abuse: a 503 to retry
  // when the stream's dependency is down or hangs.
  signalNotProduced: (reason: string, dependencyDown = false) =>
    new HttpError(
      dependencyDown ? 503 : 500,
      `Failed to produce signal: ${reason}`,
      dependencyDown ? UNAVAILABLE_RETRY_AFTER_S : undefined,
    ),
  // CONTRACT, Signals under overload: refused rather than accepted and trimmed away unhandled
  signalBacklogFull: (count: number) =>
    new HttpError(503, `Failed to produce signal: backlog full (${count} signals not yet handled)`),
  invalidJson: (reason: string) => new HttpError(400, BODY_PROBLEMS.notJson(reason)),
  /** CONTRACT, Bad input: `problem` is one of BODY_PROBLEMS. */
  badBody: (problem: string) => new HttpError(400, problem),
  validation: (detail: string) => new HttpError(422, detail),
  bodyTooLarge: (limitBytes: number) =>
    new HttpError(413, `Request body is larger than the limit of ${limitBytes} bytes`),
  unsupportedMediaType: (type: string) =>
    new HttpError(415, `Unsupported content type: ${type}; send application/json`),
  unsupportedContentEncoding: (coding: string) =>
    new HttpError(
      415,
      `Unsupported content encoding: ${coding.slice(0, 64)}; send the body uncompressed`,
    ),
  notFound: (what: string, id: string) => new HttpError(404, `${what} not found: ${id}`),
  routeNotFound: (method: string, url: string) =>
    new HttpError(404, `No route for ${method} ${url}`),
  databaseUnavailable: () => new HttpError(503, 'Database unavailable', UNAVAILABLE_RETRY_AFTER_S),
  // CONTRACT, Under races, crashes and abuse: `dependency` is `Redis`
  dependencyUnavailable: (dependency: string) =>
    new HttpError(503, `${dependency} unavailable`, UNAVAILABLE_RETRY_AFTER_S),
  // CONTRACT, Operator console: a decision from the page needs an operator of OPERATOR_KEYS
  operatorInvalid: () => new HttpError(401, 'Invalid operator credentials'),
  decisionRefused: (status: number, message: string) => new HttpError(status, message),
  // Nothing of the request was recorded (its transaction rolled back); retry once space is freed.
  storageFull: () =>
    new HttpError(503, 'Database storage is full: nothing was recorded, retry once space is freed'),
  /** An error nothing else names: its text stays in the log. */
  internal: () => new HttpError(500, 'Internal server error'),
  // CONTRACT, Access
  unauthorized: () => new HttpError(401, 'Unauthorized'),
  readApiClosed: () => new HttpError(403, 'Set CONSOLE_TOKEN to use the read API in prod'),
  chatWebhookSecretInvalid: () => new HttpError(401, 'Invalid chat webhook secret token'),
  chatWebhookSecretMissing: () => new HttpError(401, 'Chat webhook secret is not configured'),
  // CONTRACT, Native receivers
  receiverTokenInvalid: () => new HttpError(401, 'Invalid receiver token'),
  receiverTokensMissing: () => new HttpError(401, 'Receiver tokens are not configured'),
  analysisBusy: () => new HttpError(429, 'Too many analysis tasks in progress'),
  // CONTRACT, Silences: Alertmanager answers a refused silence with 400; `problem` is one of
  // SILENCE_PROBLEMS, a matcher's regex error, or a body validation sentence.
  silenceInvalid: (problem: string) => new HttpError(400, problem),
  // CONTRACT, Operator console: a list filter the console sends (status, severity, q, since,
  // until, order, ids) with a bad value is a 400; `problem` is one of QUERY_PROBLEMS.
  badQuery: (problem: string) => new HttpError(400, problem),
  // CONTRACT, Incident lifecycle
  incidentAlreadyAcknowledged: () => new HttpError(409, 'Incident already acknowledged'),
  incidentAlreadyResolved: () => new HttpError(409, 'Incident already resolved'),
  // CONTRACT, Hostile clients
  tooManyFailedCredentials: () =>
    new HttpError(429, 'Too many failed credentials from this address; retry later'),
  unknownHost: (host: string) => new HttpError(421, `Unknown host: ${host.slice(0, 256)}`),
  nulInUrl: () => new HttpError(400, 'The URL holds a NUL character (%00)'),
  badUrl: () => new HttpError(400, 'The URL holds a malformed percent-encoding'),
  pathSegmentTooLong: (limit: number) =>
    new HttpError(414, `A path segment is longer than the limit (${limit})`),
  // CONTRACT, Under races, crashes and abuse (Cross-site requests)
  crossSiteRefused: () => new HttpError(403, 'Cross-site request refused'),
  tooManyAlerts: (count: number, limit: number) =>
    new HttpError(413, `Too many alerts in one body: ${count} (limit ${limit})`),
  feedFull: () => new HttpError(503, 'Too many live feed streams open; retry later'),
  // CONTRACT, Under races, crashes and abuse: the feed's Redis is down or hangs
  feedUnavailable: () => new HttpError(503, 'Event feed unavailable', UNAVAILABLE_RETRY_AFTER_S),
  // A request that reaches a replica after its shutdown began: another replica (or this one,
  // restarted) takes the retry.
  shuttingDown: () => new HttpError(503, 'The service is shutting down; retry the request'),
  badCursor: () => new HttpError(422, 'cursor is not a cursor this service issued'),
  // CONTRACT, Readbacks: E-SNAP. The 500 names the readback; the package inventory, derived
  // from files the operator owns, also says which file and why.
  readbackNotFound: (name: string) => new HttpError(404, `Readback data not found: ${name}`),
  readbackInvalid: (name: string, reason?: string) =>
    new HttpError(500, `Invalid readback data: ${name}${reason ? `: ${reason}` : ''}`),
  // spec, Errors: "400 POST /agents/analyze: neither incident_id nor severity with affected_services"
  analysisInputMissing: () =>
    new HttpError(400, 'Provide incident_id, or severity with affected_services'),
  // spec, `POST /webhooks/errtracker/error`: the signature's 401 names one of
  // TRACKER_SIGNATURE_REASONS; "any unexpected error returns 500 with the error text as detail".
  trackerSignatureFailed: (reason: string) => new HttpError(401, reason),
  trackerDeliveryFailed: (text: string) => new HttpError(500, text),
  // CONTRACT, Error-tracker canaries
  canaryUnauthenticated: () => new HttpError(401, 'Canary requires operator authentication'),
  canaryNotRecorded: () => new HttpError(500, 'errtracker upstream canary was not recorded'),
  // spec, Test push
  testPushInProd: () => new HttpError(403, 'Test push is disabled in production'),
  chatApiFailed: (reason: string) => new HttpError(502, GATEWAY_ERRORS.chatApiFailed(reason)),
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
