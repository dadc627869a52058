import type { Clock } from '../../ports/clock.js';
import type { OnceKeys } from '../../ports/once-keys.js';
import type { Store } from '../../ports/store.js';

/** Expired rows are harmless (the upsert reuses them), so sweeping them can be rare. */
const sweepEveryMs = 60_000;

/**
 * Single-use keys in the `once_keys` table. One upsert decides each claim: it inserts a new
 * key, or takes over an expired one, and RETURNING tells whether this caller won. SQLite runs
 * it under its single writer lock; PostgreSQL's ON CONFLICT DO UPDATE locks the row and
 * re-checks the WHERE against the latest committed version, so racing callers see one winner.
 */
export function createSqlOnceKeys(store: Store, clock: Clock): OnceKeys {
  let lastSweep = Number.NEGATIVE_INFINITY;

  async function sweepExpired(now: number) {
    if (now - lastSweep < sweepEveryMs) return;
    lastSweep = now;
    try {
      await store.db.deleteFrom('once_keys').where('expires_at', '<=', now).execute();
    } catch {
      // Only housekeeping: the claim already succeeded or failed on its own terms.
    }
  }

  return {
    async claim(scope, key, ttlSeconds) {
      const now = clock.now();
      const expiresAt = Math.ceil(now + ttlSeconds * 1000);
      const won = await store.db
        .insertInto('once_keys')
        .values({ scope, key, expires_at: expiresAt })
        .onConflict((oc) =>
          oc
            .columns(['scope', 'key'])
            .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
            .where('once_keys.expires_at', '<=', now),
        )
        .returning('scope')
        .executeTakeFirst();
      await sweepExpired(now);
      return won !== undefined;
    },
  };
}
