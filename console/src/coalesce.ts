/**
 * Calls `run` at most once per `ms`, after the first request of each window: a storm of feed
 * events about one record (an incident hit thousands of times) costs a page one read a
 * second, not one per event. `cancel` drops a pending call (the page went away).
 */
export function coalesce(run: () => void, ms: number): { request: () => void; cancel: () => void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    request: () => {
      if (timer !== null) return;
      timer = setTimeout(() => {
        timer = null;
        run();
      }, ms);
    },
    cancel: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
