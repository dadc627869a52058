/**
 * Settles with `work`, or rejects with `onTimeout()` once `ms` have passed, whichever comes
 * first. `work` is not cancelled: its late result is dropped (and a late rejection handled),
 * so a caller never waits on a dependency longer than it promised.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Whether every one of `work` settled within `ms`; those still running are left to run. */
export async function settledWithin(
  work: readonly Promise<unknown>[],
  ms: number,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = Promise.allSettled(work).then(() => true as const);
  return Promise.race([settled, timedOut]).finally(() => clearTimeout(timer));
}
