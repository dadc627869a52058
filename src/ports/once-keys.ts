/** Single-use keys with an expiry: de-duplication windows, replay guards, nonces. */
export interface OnceKeys {
  /**
   * True for exactly one caller per (scope, key) until `ttlSeconds` have passed since that
   * claim; atomic across concurrent callers, connections and processes.
   */
  claim(scope: string, key: string, ttlSeconds: number): Promise<boolean>;
  /**
   * Gives a claim back, for a caller that could not do what it claimed the key for: the next
   * claim succeeds. Releasing a key that is not claimed does nothing. Only the winner of a
   * claim gives it back: the service's keys remember their own wins
   * (adapters/memory/remembered-once-keys.ts), so a release from another process would not
   * reach a repeat in the winner's.
   */
  release(scope: string, key: string): Promise<void>;
  /**
   * True when this process itself holds the claim, so a `claim` now is sure to be refused,
   * answered without asking the store; false when it does not know. Only the keys that
   * remember their wins (adapters/memory/remembered-once-keys.ts) ever say true.
   */
  claimedHere?(scope: string, key: string): boolean;
}
