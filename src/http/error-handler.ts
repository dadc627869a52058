import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, HttpError } from '../errors.js';
import { DependencyUnavailableError } from '../ports/unavailable.js';
import { NO_CONTROL_CHARACTERS } from './schema-types.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set by Ajv when the issue is with an object's key (`propertyNames`), not a value. */
  propertyName?: string;
}

/** Turns the first schema violation into one sentence naming the field, e.g. `body.severity …`. */
export function describeValidationIssue(context: string, issue: ValidationIssue): string {
  const base = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const field = (name: string) => [context, base, name].filter(Boolean).join('.');
  if (issue.propertyName !== undefined || issue.keyword === 'propertyNames') {
    const limit =
      issue.keyword === 'maxLength'
        ? ` longer than ${issue.params.limit} characters`
        : issue.params.pattern === NO_CONTROL_CHARACTERS
          ? ' holding a control character'
          : ' that is not allowed';
    return `${field('')} has a key${limit}`;
  }
  switch (issue.keyword) {
    case 'maxLength':
      return `${field('')} must be at most ${issue.params.limit} characters`;
    case 'pattern':
      return issue.params.pattern === NO_CONTROL_CHARACTERS
        ? `${field('')} must not contain control characters`
        : `${field('')} ${issue.message ?? 'is invalid'}`;
    case 'required':
      return `${field(String(issue.params.missingProperty))} is required`;
    case 'enum':
      return `${field('')} must be one of: ${(issue.params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `${field('')} must be of type ${String(issue.params.type).split(',').join(' or ')}`;
    case 'additionalProperties':
      return `${field(String(issue.params.additionalProperty))} is not an allowed field`;
    case 'anyOf':
    case 'oneOf':
      return `${field('')} does not match any accepted shape`;
    default:
      return `${field('')} ${issue.message ?? 'is invalid'}`;
  }
}

/** Maps Fastify's own error codes to our `{"detail", "code"}` bodies and statuses. */
function toHttpError(
  error: FastifyError,
  bodyLimitBytes: number,
  contentType: string | undefined,
): HttpError | undefined {
  if (error instanceof HttpError) return error;
  if (error.validation && error.validation.length > 0) {
    const issue = error.validation[0] as unknown as ValidationIssue;
    return errors.validation(describeValidationIssue(error.validationContext ?? 'body', issue));
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.invalidJson(error.message);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(bodyLimitBytes);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      // Fastify's message does not name the type; the request's header does.
      return errors.unsupportedMediaType(contentType ?? 'none');
  }
  if (error instanceof SyntaxError) return errors.invalidJson(error.message);
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return errors.requestRefused(error.statusCode, error.message);
  }
  return undefined;
}

/**
 * CONTRACT, Under races, crashes and abuse (Heartbeats at scale): names of up to 128
 * characters and ids of any length are answered by the routes' own rules, never Fastify's
 * 414. Node refuses a request line and headers over 16 KiB (431) before Fastify sees it, so
 * no path segment that reaches the router is longer than this.
 */
export const MAX_PATH_SEGMENT_LENGTH = 16_384;

/**
 * What the router answers before any route or hook runs (a bad percent-encoding; a segment
 * over MAX_PATH_SEGMENT_LENGTH, from `inject` only), in the API's `{"detail"}` shape.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const known =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? errors.pathSegmentTooLong(MAX_PATH_SEGMENT_LENGTH)
      : error.code === 'FST_ERR_BAD_URL'
        ? errors.badUrl()
        : errors.internal();
  // No hook runs for these: the headers every answer carries are set here.
  reply.headers(API_SECURITY_HEADERS).status(known.statusCode).send(known.body);
}

/** How long a client is asked to wait after the database ran out of disk space. */
const STORAGE_FULL_RETRY_AFTER_S = 30;

export function registerErrorHandler(
  app: FastifyInstance,
  options: {
    bodyLimitBytes: number;
    isStorageFull: (error: unknown) => boolean;
    isUnavailable: (error: unknown) => boolean;
  },
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const dependency = options.isStorageFull(error)
      ? { failure: errors.storageFull(), retryAfterS: STORAGE_FULL_RETRY_AFTER_S }
      : options.isUnavailable(error)
        ? { failure: errors.databaseUnavailable() }
        : error instanceof DependencyUnavailableError
          ? { failure: errors.dependencyUnavailable(error.dependency) }
          : undefined;
    if (dependency) {
      const { failure } = dependency;
      request.log.error({ err: error }, failure.detail);
      reply.header('retry-after', String(dependency.retryAfterS ?? failure.retryAfterS));
      return reply.status(failure.statusCode).send(failure.body);
    }
    const known = toHttpError(error, options.bodyLimitBytes, request.headers['content-type']);
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, known.detail);
      if (known.retryAfterS !== undefined) reply.header('retry-after', String(known.retryAfterS));
      return reply.status(known.statusCode).send(known.body);
    }
    request.log.error({ err: error }, 'unhandled error');
    const failure = errors.internal();
    return reply.status(failure.statusCode).send(failure.body);
  });
  app.setNotFoundHandler((request, reply) => {
    const failure = errors.routeNotFound(request.method, request.url.split('?')[0]!);
    return reply.status(failure.statusCode).send(failure.body);
  });
}
