import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { errors, type HttpError } from '../errors.js';
import {
  type Credential,
  type CredentialFailures,
  FAILURE_WINDOW_SECONDS,
  FAILURES_BEFORE_BLOCK,
  lockoutKey,
  OPERATOR_KEY_FAILURES_BEFORE_BLOCK,
} from '../ports/credential-failures.js';
import { clientAddress } from './client-address.js';

/** What every credential check needs: the secrets, the shared failure counts and the log. */
export interface GuardContext {
  config: Config;
  /** Per client address and credential kind (`lockoutKey`). */
  failures: CredentialFailures;
  /** Per client address over all operator ids' keys (keyed by the address). */
  operatorKeyFailures: CredentialFailures;
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
 * a route refuses the address only for failures of the credential it is judged by. Wrong
 * operator keys are also counted per address over all ids
 * (OPERATOR_KEY_FAILURES_BEFORE_BLOCK), which blocks the address from every operator's key.
 *
 * The credential is judged first, locally, and then one atomic operation per count decides
 * the answer: a failure is counted (its count says 401 or 429), any other request reads
 * whether the address is blocked. Requests from one process reach the store in the order
 * they were judged, so a burst of parallel guesses, on one replica or several, gets ten
 * 401s and the rest 429, and a right guess among them passes only if it came before the
 * tenth wrong one.
 */
export function guarded(context: GuardContext, check: CredentialCheck): Guard {
  return async (request, reply) => {
    const { credential, refusal } = check(request);
    if (credential && refusal?.tried) {
      const waitMs = await noteFailedCredential(context, request, credential);
      if (waitMs > 0) throw blocked(reply, waitMs);
    } else if (credential) {
      const waitMs = await blockedFor(context, clientAddress(request), credential);
      if (waitMs > 0) throw blocked(reply, waitMs);
    }
    if (!refusal) return;
    if (refusal.bearer) reply.header('www-authenticate', 'Bearer');
    throw refusal.error;
  };
}

/** How long `address` is still blocked from `credential`, by either count; 0 when it is not. */
async function blockedFor(
  { failures, operatorKeyFailures, log }: GuardContext,
  address: string,
  credential: Credential,
): Promise<number> {
  // The counts live in Redis when several replicas share them: its outage must not close
  // every guarded route, and the credentials themselves are still checked.
  const unavailable = (error: unknown) => {
    log.warn({ err: error }, 'credential failures: count unavailable, not throttling');
    return 0;
  };
  const reads = [failures.blockedFor(lockoutKey(address, credential)).catch(unavailable)];
  if (credential.kind === 'operator key') {
    reads.push(operatorKeyFailures.blockedFor(address).catch(unavailable));
  }
  return Math.max(...(await Promise.all(reads)));
}

/** The 429 of a blocked address, with its `Retry-After`. */
export function blocked(reply: FastifyReply, waitMs: number): HttpError {
  reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
  return errors.tooManyFailedCredentials();
}

/**
 * Counts a credential presented and found wrong and logs it (never its value): how many
 * milliseconds the address is now blocked from that credential for, 0 when it is not (or
 * when the count is unavailable).
 *
 * Once an address is blocked over all operator ids, its further wrong keys are not logged
 * one by one: one line says the block, as an address naming a new id each time would
 * otherwise write a line per request.
 */
export async function noteFailedCredential(
  { failures, operatorKeyFailures, log }: GuardContext,
  request: FastifyRequest,
  tried: Credential,
): Promise<number> {
  const client = clientAddress(request);
  const count = (store: CredentialFailures, key: string) =>
    store.record(key).catch((error: unknown) => {
      log.warn({ err: error }, 'credential failures: not counted');
      return 0;
    });
  const operatorKey = tried.kind === 'operator key';
  const [failed, failedOverIds] = await Promise.all([
    count(failures, lockoutKey(client, tried)),
    operatorKey ? count(operatorKeyFailures, client) : 0,
  ]);
  const blockedOverIds = failedOverIds > OPERATOR_KEY_FAILURES_BEFORE_BLOCK;
  if (!blockedOverIds) {
    log.warn(
      {
        client,
        operator: tried.operatorId,
        credential: tried.kind,
        route: `${request.method} ${request.routeOptions.url ?? request.url}`,
      },
      `failed credential: ${tried.kind}`,
    );
  } else if (failedOverIds === OPERATOR_KEY_FAILURES_BEFORE_BLOCK + 1) {
    log.warn(
      { client, credential: tried.kind, failures: OPERATOR_KEY_FAILURES_BEFORE_BLOCK },
      'operator keys: address blocked for a minute over all ids; its further wrong keys are not logged',
    );
  }
  return blockedOverIds || failed > FAILURES_BEFORE_BLOCK ? FAILURE_WINDOW_SECONDS * 1000 : 0;
}

/** The first value of a header that may repeat. */
export function headerText(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
