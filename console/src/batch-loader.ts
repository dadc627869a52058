/**
 * Reads records by id in batches: the ids asked for within `delayMs` of the first go out
 * together as one list call per `maxIds` (`GET /incidents?ids=a,b,…`), one call after another,
 * so that a storm of events costs a handful of requests instead of one per event. Free of the DOM.
 */

export interface BatchLoaderOptions<T> {
  /** One list call for at most `maxIds` ids; the records it finds. */
  load: (ids: string[]) => Promise<T[]>;
  onLoaded: (items: T[]) => void;
  delayMs?: number;
  /** The service's limit per list call (CONTRACT: `ids` takes at most 100). */
  maxIds?: number;
}

export interface BatchLoader {
  /** Asks for `id`; an id already waiting or being read is not asked for twice. */
  want(id: string): void;
  /** Ids asked for and not yet answered. */
  readonly waiting: number;
  /** Forgets what waits and drops answers still to come (the view went away). */
  stop(): void;
}

export function batchLoader<T>(options: BatchLoaderOptions<T>): BatchLoader {
  const delayMs = options.delayMs ?? 750;
  const maxIds = options.maxIds ?? 100;
  const queued = new Set<string>();
  const reading = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  let stopped = false;

  const drain = async () => {
    running = true;
    while (queued.size > 0 && !stopped) {
      const ids = [...queued].slice(0, maxIds);
      for (const id of ids) {
        queued.delete(id);
        reading.add(id);
      }
      try {
        const items = await options.load(ids);
        if (!stopped) options.onLoaded(items);
      } catch {
        // A failed read is not retried here: the next event about the record asks again.
      } finally {
        for (const id of ids) reading.delete(id);
      }
    }
    running = false;
  };

  const schedule = () => {
    if (timer !== undefined || running || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      void drain().then(() => {
        // Ids asked for while the last call ran wait for their own window.
        if (queued.size > 0) schedule();
      });
    }, delayMs);
  };

  return {
    want(id) {
      if (stopped || queued.has(id) || reading.has(id)) return;
      queued.add(id);
      schedule();
    },
    get waiting() {
      return queued.size + reading.size;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      queued.clear();
    },
  };
}

/**
 * `run` at most once per `ms`: the first call runs at once, calls within the window make one
 * more run at its end. For reads that only need to be fresh (the counts per severity).
 */
export function throttled(run: () => void, ms: number): { call(): void; stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let again = false;
  const open = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (!again) return;
      again = false;
      run();
      open();
    }, ms);
  };
  return {
    call() {
      if (timer !== undefined) {
        again = true;
        return;
      }
      run();
      open();
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      again = false;
    },
  };
}
