/** Time source; injected so tests can move time (debounce windows, expiries, retention). */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
