import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors, type HttpError } from '../errors.js';
import {
  type Credential,
  type CredentialFailures,
  FAILURE_WINDOW_SECONDS,
  FAILURES_BEFORE_BLOCK,
  lockoutKey,
} from '../ports/credential-failures.js';
import { clientAddress } from './client-address.js';

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
  /** A credential was presented and found wrong: logged and counted. */
  tried?: boolean;
  /** Answer with `WWW-Authenticate: Bearer`. */
  bearer?: boolean;
}

/**
 * A check of one request: the credential it is judged by (unset when the route guards
 * nothing for it), and why it is refused (unset when it passes).
 */
export type CredentialCheck = (request: FastifyRequest) => {
  credential?: Credential;
  refusal?: Refusal;
};

/**
 * CONTRACT, Hostile clients: a credential presented and found wrong is logged at `warn` with
 * the client address and operator id (never the value tried) and counted against the
 * address; from the tenth failure in a minute on, the address gets 429 with `Retry-After`
 * for a minute, good credentials included. CONTRACT, Under races, crashes and abuse: that
 * count and that block are per credential kind (each operator's key a kind of its own), so
 * a route refuses the address only for failures of the credential it is judged by.
 *
 * The credential is judged first, locally, and then exactly one atomic operation on the
 * shared count decides the answer: a failure is counted (its count says 401 or 429), any
 * other request reads whether the address is blocked. Requests from one process reach the
 * store in the order they were judged, so a burst of parallel guesses, on one replica or
 * several, gets ten 401s and the rest 429, and a right guess among them passes only if it
 * came before the tenth wrong one.
 */
export function guarded(context: GuardContext, check: CredentialCheck): Guard {
  const { failures, log } = context;
  return async (request, reply) => {
    const { credential, refusal } = check(request);
    if (credential && refusal?.tried) {
      const count = await noteFailedCredential(context, request, credential);
      if (count > FAILURES_BEFORE_BLOCK) throw blocked(reply, FAILURE_WINDOW_SECONDS * 1000);
    } else if (credential) {
      const key = lockoutKey(clientAddress(request), credential);
      const waitMs = await failures.blockedFor(key).catch((error: unknown) => {
        // The count lives in Redis when several replicas share it: its outage must not
        // close every guarded route, and the credentials themselves are still checked.
        log.warn({ err: error }, 'credential failures: count unavailable, not throttling');
        return 0;
      });
      if (waitMs > 0) throw blocked(reply, waitMs);
    }
    if (!refusal) return;
    if (refusal.bearer) reply.header('www-authenticate', 'Bearer');
    throw refusal.error;
  };
}

/** The 429 of a blocked address, with its `Retry-After`. */
export function blocked(reply: FastifyReply, waitMs: number): HttpError {
  reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
  return errors.tooManyFailedCredentials();
}

/**
 * Logs a credential presented and found wrong (never its value) and counts it: how many
 * failures of that credential the address has now (0 when the count is unavailable).
 */
export async function noteFailedCredential(
  { failures, log }: GuardContext,
  request: FastifyRequest,
  tried: Credential,
): Promise<number> {
  log.warn(
    {
      client: clientAddress(request),
      operator: tried.operatorId,
      credential: tried.kind,
      route: `${request.method} ${request.routeOptions.url ?? request.url}`,
    },
    `failed credential: ${tried.kind}`,
  );
  return failures.record(lockoutKey(clientAddress(request), tried)).catch((error: unknown) => {
    log.warn({ err: error }, 'credential failures: not counted');
    return 0;
  });
}

/** The first value of a header that may repeat. */
export function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
