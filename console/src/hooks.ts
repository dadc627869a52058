import { useEffect, useState } from 'preact/hooks';
import type { Watched } from './api';
import { isolate } from './outside';

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

export function age(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  // A stamp that is no date is shown as sent: outside text, so isolated.
  return Number.isNaN(date.getTime()) ? isolate(iso) : date.toLocaleString();
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
