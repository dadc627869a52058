import { errors } from '../errors.js';
import type { Credential } from '../ports/credential-failures.js';
import { equalInConstantTime } from '../support/constant-time.js';
import { type Guard, type GuardContext, guarded, headerText } from './credential-guard.js';

export type { Guard } from './credential-guard.js';

const CONSOLE_TOKEN: Credential = { kind: 'console token' };

/** The credential of a request naming `id` in `x-operator-id`: that operator's key. */
export function operatorKeyOf(id: string | undefined): Credential {
  return { kind: 'operator key', operatorId: id?.slice(0, 128) };
}

/** `Bearer <token>` with the scheme in any case (RFC 9110: auth schemes are case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer +(\S{1,4096})\s*$/i.exec(header ?? '');
  return match?.[1];
}

/**
 * CONTRACT, Access: with CONSOLE_TOKEN set, `Authorization: Bearer <token>`, compared in
 * constant time.
 * Anything else, a token in the query string included, is 401 `Unauthorized`.
 */
export function requireConsoleToken(context: GuardContext): Guard {
  const expected = context.config.consoleToken;
  return guarded(context, (request) => {
    if (!expected) return {};
    const header = request.headers.authorization;
    const given = bearerToken(header);
    if (given !== undefined && equalInConstantTime(given, expected)) {
      return { credential: CONSOLE_TOKEN };
    }
    return {
      credential: CONSOLE_TOKEN,
      refusal: { error: errors.unauthorized(), bearer: true, tried: header !== undefined },
    };
  });
}

/**
 * CONTRACT, Access: the read API needs the console token, and in `prod` without one it is
 * closed (403) rather than open to anyone who can reach the port.
 */
export function requireReadApiAccess(context: GuardContext): Guard {
  if (!context.config.consoleToken && context.config.appEnv === 'prod') {
    return guarded(context, () => ({
      credential: CONSOLE_TOKEN,
      refusal: { error: errors.readApiClosed() },
    }));
  }
  return requireConsoleToken(context);
}

/** The operator's id when `x-operator-id` and `x-operator-key` match OPERATOR_KEYS. */
export function operatorOf(
  operatorKeys: ReadonlyMap<string, string>,
  id: unknown,
  key: unknown,
): string | undefined {
  if (typeof id !== 'string' || typeof key !== 'string' || id === '' || key === '') return;
  const expected = operatorKeys.get(id);
  // Compared even for an unknown id, so the answer takes as long either way.
  const matches = equalInConstantTime(key, expected ?? `${key}\u0000`);
  return expected !== undefined && matches ? id : undefined;
}

/**
 * CONTRACT, Operator console: `x-operator-id` and `x-operator-key` of OPERATOR_KEYS, else
 * 401 `Invalid operator credentials`. The handler reads the id from the header it checked.
 */
export function requireOperator(context: GuardContext): Guard {
  const keys = context.config.operatorKeys;
  return guarded(context, (request) => {
    const id = headerText(request, 'x-operator-id');
    const key = headerText(request, 'x-operator-key');
    const credential = operatorKeyOf(id);
    if (operatorOf(keys, id, key) !== undefined) return { credential };
    return { credential, refusal: { error: errors.operatorInvalid(), tried: key !== undefined } };
  });
}
