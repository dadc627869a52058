import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Watched } from './api';

export function useWatched<T>(watched: Watched<T>): T {
  const [, setTick] = useState(0);
  useEffect(() => watched.watch(() => setTick((tick) => tick + 1)), [watched]);
  return watched.value;
}

/** Re-renders every `ms` so that ages stay true. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

/**
 * A redraw that many calls within `ms` share: events of a storm change the data at once but
 * redraw the view once per window, so the page stays responsive in a storm (docs/console.md).
 * A slow redraw (a busy machine) widens the window, up to 8 times its own length and 2 s, so
 * that redrawing never takes more than about an eighth of the page's time.
 */
export function useCoalescedRedraw(ms = 250): () => void {
  const [, setTick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const spacing = useRef(ms);
  const started = useRef<number>();
  useLayoutEffect(() => {
    if (started.current === undefined) return;
    const took = performance.now() - started.current;
    started.current = undefined;
    spacing.current = Math.min(2000, Math.max(ms, took * 8));
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      started.current = performance.now();
      setTick((tick) => tick + 1);
    }, spacing.current);
  }, [ms]);
}
