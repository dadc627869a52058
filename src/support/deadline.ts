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
