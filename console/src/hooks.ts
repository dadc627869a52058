import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
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
 * redraw the view once per window, so the page stays responsive (issue 25, storm-proof feed).
 */
export function useCoalescedRedraw(ms = 250): () => void {
  const [, setTick] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      setTick((tick) => tick + 1);
    }, ms);
  }, [ms]);
}
