/**
 * CONTRACT, Hostile clients and Under races, crashes and abuse: failed credentials counted
 * per key under one `FailureLimit`. After its `failures` within its window, the key is
 * blocked for a window after the last of them, across every replica that shares the store.
 */
export interface CredentialFailures {
  /**
   * Counts one failed credential under `key`, atomically: how many failures it has now,
   * this one included (past the limit's `failures` while the key is blocked).
   */
  record(key: string): Promise<number>;
  /** How many milliseconds `key` is still blocked for; 0 when it is not. */
  blockedFor(key: string): Promise<number>;
}

/** CONTRACT, Hostile clients: "After 10 failures from one client address within a minute". */
export const FAILURES_BEFORE_BLOCK = 10;
export const FAILURE_WINDOW_SECONDS = 60;

/**
 * Wrong operator keys from one client address over all operator ids, within a minute, that
 * block the address from every operator's key for a minute. Each id has its own count (ten
 * wrong keys for `alice` never lock out `bob`), so without this one an address naming a
 * new id each time would never be blocked. Ten times the per-id limit: a console shared by
 * a team behind one address still gets ten tries for each of ten operators.
 */
export const OPERATOR_KEY_FAILURES_BEFORE_BLOCK = 100;

/** How many failures within how long block a key, and what the store calls such counts. */
export interface FailureLimit {
  name: string;
  failures: number;
  windowSeconds: number;
}

/** Per client address and credential kind, keyed by `lockoutKey`. */
export const PER_CREDENTIAL: FailureLimit = {
  name: 'credential-failures',
  failures: FAILURES_BEFORE_BLOCK,
  windowSeconds: FAILURE_WINDOW_SECONDS,
};

/** Per client address over all operator ids' keys, keyed by the address alone. */
export const OPERATOR_KEYS_PER_ADDRESS: FailureLimit = {
  name: 'operator-key-failures',
  failures: OPERATOR_KEY_FAILURES_BEFORE_BLOCK,
  windowSeconds: FAILURE_WINDOW_SECONDS,
};

/** The kinds of credential, as the log names them. */
export type CredentialKind =
  | 'console token'
  | 'operator key'
  | 'receiver token'
  | 'chat webhook secret';

/** What a guarded route is judged by: a kind, and for an operator key the operator it names. */
export interface Credential {
  kind: CredentialKind;
  operatorId?: string;
}

/**
 * CONTRACT, Under races, crashes and abuse: the lockout is kept per client address and per
 * credential kind, each operator id's key a kind of its own, so wrong console tokens never
 * close the Alertmanager receiver and wrong keys for `alice` never lock out `bob`. Unknown
 * operator ids get their own count too: a shared one would tell which ids exist. The
 * address comes first and is an IP address (src/http/client-address.ts takes a forwarded
 * value that is not one, or carries a port, down to one), which holds no `|`: two different
 * pairs never share a key.
 */
export function lockoutKey(address: string, credential: Credential): string {
  const what =
    credential.kind === 'operator key'
      ? `operator key ${credential.operatorId ?? ''}`
      : credential.kind;
  return `${address}|${what}`;
}
