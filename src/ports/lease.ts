/**
 * CONTRACT, Several replicas: a dead holder's lease is "taken over within 30 s". 20 s of life,
 * renewed every third of it, leaves a waiter retrying every few seconds inside that bound.
 */
export const DEFAULT_LEASE_TTL_MS = 20_000;

/**
 * Named leases: at most one holder per name at a time, across processes. A holder that
 * stops renewing (it died, or lost its connection) loses the lease once `ttlMs` have passed
 * since it last took or renewed it.
 */
export interface Leases {
  /** How long a lease lasts from its last taking or renewal. */
  readonly ttlMs: number;
  /** Takes `name` for `holder` when nobody holds it; true when `holder` holds it now. */
  acquire(name: string, holder: string): Promise<boolean>;
  /** Extends `holder`'s lease by `ttlMs`; false when `holder` no longer holds it. */
  renew(name: string, holder: string): Promise<boolean>;
  /** Gives the lease up when `holder` holds it; a lease another holder took is left alone. */
  release(name: string, holder: string): Promise<void>;
}

export interface LeaseOptions {
  /** Tests shorten it to see a takeover in seconds. */
  ttlMs?: number;
}
