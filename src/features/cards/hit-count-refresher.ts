import type { CardSender } from './card-types.js';

/** CONTRACT, Chat under storms: hit-count edits "at most once a minute per card". */
export const HIT_COUNT_EDIT_INTERVAL_MS = 60_000;

/** Past this many remembered edit times, those older than the interval are forgotten. */
const EDIT_TIMES_KEPT = 1000;

/**
 * Converged alerts edit their card's hit count with the latest count: the first a few
 * seconds after the first hit (`delayMs`, so a burst becomes one edit), then at most once
 * every `intervalMs` per card, and never while a new card waits to be sent (CONTRACT, Chat
 * under storms): an alert storm must not become a storm of chat API calls, nor push new
 * incidents' cards further back. An edit the chat refused with a 429 is tried again later.
 * One approval has one card that converges (the latest), so edits are kept per approval.
 */
export function createHitCountRefresher(
  cards: CardSender,
  delayMs = 5000,
  intervalMs = HIT_COUNT_EDIT_INTERVAL_MS,
) {
  /** Counts noted and not yet shown. */
  const latest = new Map<string, number>();
  const lastEditAt = new Map<string, number>();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, Promise<void>>();
  let stopped = false;
  let stopWaiting: () => void = () => undefined;
  const stopping = new Promise<void>((resolve) => {
    stopWaiting = resolve;
  });

  function forgetOldEditTimes(now: number) {
    if (lastEditAt.size <= EDIT_TIMES_KEPT) return;
    for (const [approvalId, at] of lastEditAt) {
      if (now - at >= intervalMs) lastEditAt.delete(approvalId);
    }
  }

  function schedule(approvalId: string) {
    if (stopped || timers.has(approvalId) || inFlight.has(approvalId)) return;
    if (!latest.has(approvalId)) return;
    const now = Date.now();
    forgetOldEditTimes(now);
    const lastEdit = lastEditAt.get(approvalId);
    const dueAt = Math.max(now + delayMs, lastEdit === undefined ? now : lastEdit + intervalMs);
    const timer = setTimeout(() => {
      timers.delete(approvalId);
      flush(approvalId, false);
    }, dueAt - now);
    timers.set(approvalId, timer);
  }

  function flush(approvalId: string, atShutdown: boolean) {
    const edit = (async () => {
      // Never ahead of a waiting new card; at shutdown the sender refuses instead of waiting.
      if (!atShutdown) await Promise.race([cards.idle(), stopping]);
      const hitCount = latest.get(approvalId);
      if (hitCount === undefined) return;
      latest.delete(approvalId);
      const outcome = await cards.editHitCount(approvalId, hitCount);
      if (outcome === 'edited') lastEditAt.set(approvalId, Date.now());
      if (outcome === 'deferred') {
        latest.set(approvalId, Math.max(hitCount, latest.get(approvalId) ?? 0));
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        inFlight.delete(approvalId);
        schedule(approvalId);
      });
    inFlight.set(approvalId, edit);
  }

  return {
    note(approvalId: string, hitCount: number) {
      if (stopped) return;
      latest.set(approvalId, Math.max(hitCount, latest.get(approvalId) ?? 0));
      schedule(approvalId);
    },
    /**
     * At shutdown: sends the counts still waiting whose card may be edited now (not edited
     * within the interval, no new card waiting), and waits for every edit.
     */
    async flushAll() {
      stopped = true;
      stopWaiting();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      const now = Date.now();
      for (const approvalId of [...latest.keys()]) {
        if (inFlight.has(approvalId)) continue;
        const lastEdit = lastEditAt.get(approvalId);
        if (lastEdit !== undefined && now - lastEdit < intervalMs) continue;
        flush(approvalId, true);
      }
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
