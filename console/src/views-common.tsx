import { useEffect, useState } from 'preact/hooks';
import { ApiError, signInCount } from './api';
import { throttled } from './batch-loader';
import { useWatched } from './hooks';
import { Outside } from './outside';

/** A view that reloads on feed events loads at most this often: a storm is not a request per event. */
const RELOAD_EVERY_MS = 1000;

/**
 * Loads with `load` whenever `deps` or the sign-in change; `reload()` loads again, at once, or
 * once at the end of a second that already had a reload.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const signIns = useWatched(signInCount);
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  const [reload] = useState(() =>
    throttled(() => setReloads((count) => count + 1), RELOAD_EVERY_MS),
  );
  useEffect(() => () => reload.stop(), []);
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
  return { data, error, reload: () => reload.call() };
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

/** A record's page before its record is read: loading, or why it cannot be, and a way back. */
export function RecordNotShown(props: {
  kind: string;
  id: string;
  error: string | null;
  back: { href: string; label: string };
}) {
  return (
    <section>
      <h1>
        {props.kind} <Outside>{props.id}</Outside>
      </h1>
      <Loading error={props.error} />
      <p>
        <a href={props.back.href}>{props.back.label}</a>
      </p>
    </section>
  );
}
