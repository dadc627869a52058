import type { CardSender } from './card-types.js';

/**
 * Converged alerts edit their card's hit count, at most once per approval every `delayMs`
 * with the latest count: an alert storm must not become a storm of chat API calls.
 */
export function createHitCountRefresher(cards: CardSender, delayMs = 5000) {
  const latest = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();

  const inFlight = new Set<Promise<void>>();

  function flush(approvalId: string) {
    const hitCount = latest.get(approvalId);
    latest.delete(approvalId);
    if (hitCount === undefined) return;
    const edit = cards.refreshHitCount(approvalId, hitCount).finally(() => inFlight.delete(edit));
    inFlight.add(edit);
  }

  return {
    note(approvalId: string, hitCount: number) {
      const scheduled = latest.has(approvalId);
      latest.set(approvalId, Math.max(hitCount, latest.get(approvalId) ?? 0));
      if (scheduled) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        flush(approvalId);
      }, delayMs);
      timers.add(timer);
    },
    /** Sends what is waiting now and waits for every edit (at shutdown). */
    async flushAll() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const approvalId of [...latest.keys()]) flush(approvalId);
      await Promise.allSettled([...inFlight]);
    },
  };
}
