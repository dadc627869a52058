import type { Clock } from '../../ports/clock.js';
import type { OnceKeys } from '../../ports/once-keys.js';
import type { Store } from '../../ports/store.js';
import { groupCommit } from '../../support/group-commit.js';

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

  // Claims arriving together share one upsert; RETURNING names the keys this batch won.
  const claims = groupCommit<{ scope: string; key: string; expiresAt: number }, boolean>(
    async (batch) => {
      const now = clock.now();
      const first = new Map<string, number>();
      batch.forEach((claim, index) => {
        const id = `${claim.scope}\u0000${claim.key}`;
        if (!first.has(id)) first.set(id, index);
      });
      // One statement may touch a row once, and a repeat within the batch loses anyway.
      const rows = [...first.values()].map((index) => batch[index]!);
      const won = await store.db
        .insertInto('once_keys')
        .values(rows.map((row) => ({ scope: row.scope, key: row.key, expires_at: row.expiresAt })))
        .onConflict((oc) =>
          oc
            .columns(['scope', 'key'])
            .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
            .where('once_keys.expires_at', '<=', now),
        )
        .returning(['scope', 'key'])
        .execute();
      const winners = new Set(won.map((row) => `${row.scope}\u0000${row.key}`));
      await sweepExpired(now);
      return batch.map((claim, index) => {
        const id = `${claim.scope}\u0000${claim.key}`;
        return first.get(id) === index && winners.has(id);
      });
    },
  );

  return {
    claim(scope, key, ttlSeconds) {
      const expiresAt = Math.ceil(clock.now() + ttlSeconds * 1000);
      return claims.add({ scope, key, expiresAt });
    },
    async release(scope, key) {
      await store.db
        .deleteFrom('once_keys')
        .where('scope', '=', scope)
        .where('key', '=', key)
        .execute();
    },
  };
}
