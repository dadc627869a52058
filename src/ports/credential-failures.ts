/**
 * CONTRACT, Hostile clients: failed credentials counted per client address. After
 * `FAILURES_BEFORE_BLOCK` within a minute, the address is blocked for a minute after the
 * last of them, across every replica that shares the store.
 */
export interface CredentialFailures {
  /**
   * Counts one failed credential from `address`, atomically: how many failures it has now,
   * this one included (past FAILURES_BEFORE_BLOCK while the address is blocked).
   */
  record(address: string): Promise<number>;
  /** How many milliseconds `address` is still blocked for; 0 when it is not. */
  blockedFor(address: string): Promise<number>;
}

/** CONTRACT, Hostile clients: "After 10 failures from one client address within a minute". */
export const FAILURES_BEFORE_BLOCK = 10;
export const FAILURE_WINDOW_SECONDS = 60;
