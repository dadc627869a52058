/** Entries go stale only after claimIdleMs; looking for them more often than this is waste. */
const lookEveryMs = 1000;

/**
 * When a consumer group's reader next looks for entries another consumer took and left
 * (both stream adapters): at most once a second per group and process, or once per
 * `claimIdleMs` when that is shorter, and again at once after a look that filled a batch,
 * since more stale entries may be left behind.
 */
export function createReclaimLooks() {
  /** Per stream and group: when this process last looked, unless it must look again. */
  const lastLook = new Map<string, number>();
  const keyOf = (stream: string, group: string) => `${stream}\u0000${group}`;
  return {
    due(stream: string, group: string, now: number, claimIdleMs: number): boolean {
      const since = now - (lastLook.get(keyOf(stream, group)) ?? Number.NEGATIVE_INFINITY);
      return since >= Math.min(lookEveryMs, claimIdleMs);
    },
    looked(stream: string, group: string, now: number, batchFilled: boolean): void {
      if (batchFilled) lastLook.delete(keyOf(stream, group));
      else lastLook.set(keyOf(stream, group), now);
    },
  };
}
