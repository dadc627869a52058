/**
 * The codes of the error catalog (src/errors.ts): every error the service answers with has a
 * stable `code`, mapped here to its status once, and a `detail` for people. Clients decide by
 * `code`: the detail's wording may change, the code does not.
 */
export const ERROR_STATUS = {
  hmac_failed: 401,
  signal_not_produced: 500,
  signal_stream_unavailable: 503,
  signal_backlog_full: 503,
  invalid_json: 400,
  bad_body: 400,
  validation_failed: 422,
  body_too_large: 413,
  unsupported_media_type: 415,
  unsupported_content_encoding: 415,
  incident_not_found: 404,
  approval_not_found: 404,
  silence_not_found: 404,
  heartbeat_not_found: 404,
  external_event_not_found: 404,
  task_not_found: 404,
  route_not_found: 404,
  database_unavailable: 503,
  dependency_unavailable: 503,
  operator_invalid: 401,
  approval_already_decided: 409,
  already_signed: 409,
  already_processed: 409,
  storage_full: 503,
  internal: 500,
  unauthorized: 401,
  read_api_closed: 403,
  chat_webhook_secret_invalid: 401,
  chat_webhook_secret_missing: 401,
  receiver_token_invalid: 401,
  receiver_tokens_missing: 401,
  analysis_busy: 429,
  silence_invalid: 400,
  bad_query: 400,
  incident_already_acknowledged: 409,
  incident_already_resolved: 409,
  too_many_failed_credentials: 429,
  unknown_host: 421,
  nul_in_url: 400,
  bad_url: 400,
  path_segment_too_long: 414,
  cross_site_refused: 403,
  too_many_alerts: 413,
  feed_full: 503,
  feed_unavailable: 503,
  shutting_down: 503,
  bad_cursor: 422,
  readback_not_found: 404,
  readback_invalid: 500,
  analysis_input_missing: 400,
  tracker_signature_failed: 401,
  tracker_delivery_failed: 500,
  canary_unauthenticated: 401,
  canary_not_recorded: 500,
  test_push_in_prod: 403,
  chat_api_failed: 502,
  console_not_built: 503,
  request_timeout: 408,
  headers_too_large: 431,
  malformed_request: 400,
  /** A 4xx the web framework refused with before any route ran: its status is the framework's. */
  request_refused: 400,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The body of every error answer. */
export interface ErrorBody {
  detail: string;
  code: ErrorCode;
}
