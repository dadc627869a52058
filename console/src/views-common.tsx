import { useEffect, useState } from 'preact/hooks';
import { ApiError, signInCount } from './api';
import { useWatched } from './hooks';
import { Outside } from './outside';

/** Loads with `load` whenever `deps` or the sign-in change; `reload()` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const signIns = useWatched(signInCount);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let cancelled = false;
    load().then(
      (value) => {
        if (cancelled) return;
        setError(null);
        setData(value);
      },
      (reason: unknown) => {
        if (cancelled) return;
        if (reason instanceof ApiError && [401, 403].includes(reason.status)) return;
        setError(reason instanceof Error ? reason.message : String(reason));
      },
    );
    return () => {
      cancelled = true;
    };
  }, [...deps, signIns, reloads]);
  return { data, error, reload: () => setReloads((count) => count + 1) };
}

export function Loading({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      <Outside>{error}</Outside>
    </p>
  ) : (
    <p class="muted">Loading…</p>
  );
}
