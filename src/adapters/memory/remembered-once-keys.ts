import { performance } from 'node:perf_hooks';
import type { Clock } from '../../ports/clock.js';
import type { OnceKeys } from '../../ports/once-keys.js';

/** Beyond this many, the oldest claims are forgotten: only their repeats go to the store. */
const REMEMBERED_MAX = 10_000;

interface Held {
  /** On the injected clock, which the SQL store's expiries use. */
  clockUntil: number;
  /** On the monotonic clock, which Redis's own expiries follow. */
  monotonicUntil: number;
}

/**
 * Claims this process won, remembered until they expire, so that a repeat of one (a tracker
 * redelivering the same issue, a replayed signature) is answered without asking the store.
 *
 * The answer stays exact across replicas: only a claim's winner gives it back (`release`),
 * and it does so through this object, which forgets the claim first. Both expiries are
 * counted from before the store was asked, so a remembered claim never outlives the stored
 * one on either clock; a repeat after that, or of a key won elsewhere, goes to the store.
 */
export function rememberingOnceKeys(store: OnceKeys, clock: Clock): OnceKeys {
  const held = new Map<string, Held>();

  function stillHeld(id: string): boolean {
    const claim = held.get(id);
    if (claim === undefined) return false;
    if (clock.now() < claim.clockUntil && performance.now() < claim.monotonicUntil) return true;
    held.delete(id);
    return false;
  }

  function remember(id: string, claim: Held) {
    held.delete(id);
    held.set(id, claim);
    if (held.size > REMEMBERED_MAX) held.delete(held.keys().next().value as string);
  }

  return {
    async claim(scope, key, ttlSeconds) {
      const id = `${scope}\u0000${key}`;
      if (stillHeld(id)) return false;
      const ttlMs = ttlSeconds * 1000;
      const claim = { clockUntil: clock.now() + ttlMs, monotonicUntil: performance.now() + ttlMs };
      const won = await store.claim(scope, key, ttlSeconds);
      if (won) remember(id, claim);
      return won;
    },
    claimedHere(scope, key) {
      return stillHeld(`${scope}\u0000${key}`);
    },
    async release(scope, key) {
      held.delete(`${scope}\u0000${key}`);
      await store.release(scope, key);
    },
  };
}
