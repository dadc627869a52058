import { DEFAULT_LEASE_TTL_MS, type LeaseOptions, type Leases } from '../../ports/lease.js';

/**
 * Leases within one process: embedded, one process owns the SQLite file and the only poller
 * (`npm run consumer` shares the file but never polls chat), so it always gets the lease.
 */
export function createMemoryLeases(options: LeaseOptions = {}): Leases {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const held = new Map<string, { holder: string; until: number }>();
  const holds = (name: string, holder: string) => {
    const lease = held.get(name);
    return lease !== undefined && lease.holder === holder && lease.until > Date.now();
  };
  return {
    ttlMs,
    async acquire(name, holder) {
      const lease = held.get(name);
      if (lease && lease.holder !== holder && lease.until > Date.now()) return false;
      held.set(name, { holder, until: Date.now() + ttlMs });
      return true;
    },
    async renew(name, holder) {
      if (!holds(name, holder)) return false;
      held.set(name, { holder, until: Date.now() + ttlMs });
      return true;
    },
    async release(name, holder) {
      if (held.get(name)?.holder === holder) held.delete(name);
    },
  };
}
