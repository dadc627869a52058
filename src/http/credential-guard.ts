import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors, type HttpError } from '../errors.js';
import type { CredentialFailures } from '../ports/credential-failures.js';

/** What every credential check needs: the secrets, the shared failure count and the log. */
export interface GuardContext {
  config: Config;
  failures: CredentialFailures;
  log: FastifyBaseLogger;
}

export type Guard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Why a request was refused, and whether a credential was presented and found wrong. */
export interface Refusal {
  error: HttpError;
  /** The kind of credential tried, for the log; unset when none was presented. */
  tried?: 'console token' | 'receiver token' | 'operator key';
  operatorId?: string;
  /** Answer with `WWW-Authenticate: Bearer`. */
  bearer?: boolean;
}

/** A check of one request's credentials: undefined when they pass. */
export type CredentialCheck = (request: FastifyRequest) => Refusal | undefined;

/**
 * CONTRACT, Hostile clients: a guarded route first refuses an address blocked for failed
 * credentials (429 with `Retry-After`, even with good credentials), then runs its check; a
 * credential presented and found wrong is logged at `warn` with the client address and
 * operator id (never the value tried) and counted against the address.
 */
export function guarded(context: GuardContext, check: CredentialCheck): Guard {
  const { failures, log } = context;
  return async (request, reply) => {
    const waitMs = await failures.blockedFor(request.ip).catch((error: unknown) => {
      // The count lives in Redis when several replicas share it: its outage must not close
      // every guarded route, and the credentials themselves are still checked.
      log.warn({ err: error }, 'credential failures: count unavailable, not throttling');
      return 0;
    });
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw errors.tooManyFailedCredentials();
    }
    const refusal = check(request);
    if (!refusal) return;
    if (refusal.tried) await noteFailedCredential(context, request, refusal);
    if (refusal.bearer) reply.header('www-authenticate', 'Bearer');
    throw refusal.error;
  };
}

/** Logs a credential presented and found wrong (never its value) and counts it. */
export async function noteFailedCredential(
  { failures, log }: GuardContext,
  request: FastifyRequest,
  tried: Pick<Refusal, 'tried' | 'operatorId'>,
): Promise<void> {
  log.warn(
    {
      client: request.ip,
      operator: tried.operatorId,
      credential: tried.tried,
      route: `${request.method} ${request.routeOptions.url ?? request.url}`,
    },
    `failed credential: ${tried.tried}`,
  );
  await failures.record(request.ip).catch((error: unknown) => {
    log.warn({ err: error }, 'credential failures: not counted');
  });
}

/** The first value of a header that may repeat. */
export function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
